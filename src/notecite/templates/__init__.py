"""Reasoning templates: a library of markdown scaffolds and a retriever that finds the right
one for a problem, falling back to chain of thought.

The library is markdown with YAML frontmatter under ``data/bot-buffer`` and
``data/templates`` (or the bundled copy in ``library/``). Templates are embedded with the
engine's embedder and kept in the index's SQLite file, or in a ChromaDB collection when one
is configured.
"""

from notecite.templates.library import BUILTIN_CHAIN_OF_THOUGHT, resolve_template_dirs
from notecite.templates.parsing import embed_text, load_templates, parse_template
from notecite.templates.retriever import (
    TemplateRetriever,
    open_template_retriever,
    open_template_store,
    rag_config,
)
from notecite.templates.store import IndexedTemplate, StoredState, TemplateStore
from notecite.templates.thresholds import threshold_for
from notecite.templates.types import RAGConfig, Template, TemplateMatch

__all__ = [
    "BUILTIN_CHAIN_OF_THOUGHT",
    "IndexedTemplate",
    "RAGConfig",
    "StoredState",
    "Template",
    "TemplateMatch",
    "TemplateRetriever",
    "TemplateStore",
    "embed_text",
    "load_templates",
    "open_template_retriever",
    "open_template_store",
    "parse_template",
    "rag_config",
    "resolve_template_dirs",
    "threshold_for",
]
