"""Evaluation of retrieval on BEIR-format data."""
