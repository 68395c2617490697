"""The wire contracts: request and response models of the ask, chat and OpenAI surfaces.

Only the surfaces (api, web, cli, mcp) and the use cases that answer them speak these; the
stages below (store, retrieve, ingest) work on the domain types of :mod:`notecite.types`.
"""
