"""Heading-path chunking with token windows."""

from notecite.chunking.chunker import ChunkerConfig, chunk_note

__all__ = ["ChunkerConfig", "chunk_note"]
