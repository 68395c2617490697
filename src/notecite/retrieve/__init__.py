"""Retrieval: candidate generation and score fusion."""
