"""The reasoning-template contract: JSON in camelCase, Python in snake_case."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from notecite.templates.thresholds import threshold_for

DEFAULT_TEMPLATE_DIRS: tuple[str, ...] = ("data/bot-buffer", "data/templates")
"""Relative to the working directory; each falls back to the bundled library (see
:func:`notecite.templates.library.resolve_template_dirs`)."""

FALLBACK_TEMPLATE_ID = "bot-chain-of-thought"
FALLBACK_SCORE = 0.5


class _CamelModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


class Template(_CamelModel):
    """One reasoning template: a markdown file with YAML frontmatter.

    ``id`` is the file name without ``.md``; ``content`` is the markdown after the
    frontmatter; ``file_path`` is where it was read from.
    """

    id: str = Field(min_length=1)
    name: str
    domain: str = "general"
    complexity: str = "moderate"
    methodology: str = "sequential"
    keywords: tuple[str, ...] = ()
    description: str = ""
    content: str = ""
    file_path: str = ""


class TemplateMatch(_CamelModel):
    """A template found for a query; ``score`` is the cosine similarity (1 - cosine distance)."""

    id: str
    name: str
    score: float = Field(ge=0.0, le=1.0)
    description: str = ""
    content: str = ""

    @classmethod
    def of(cls, template: Template, score: float) -> TemplateMatch:
        """The match of ``template`` with ``score`` clamped to 0-1."""
        return cls(
            id=template.id,
            name=template.name,
            score=min(1.0, max(0.0, float(score))),
            description=template.description,
            content=template.content,
        )


class RAGConfig(_CamelModel):
    """How templates are stored and retrieved.

    Attributes:
        embedding_model: the embedder's model id; ``None`` means the embedder in use
            (the retriever fills it in and refuses a different one).
        top_k: how many templates a search returns at most.
        similarity_threshold: the lowest cosine similarity kept. ``None`` means the
            default calibrated for ``embedding_model``: 0.65 for nomic-embed-text (and any
            model not calibrated here), a lower value for the bundled minilm
            (:mod:`notecite.templates.thresholds`, ``docs/templates.md``).
        template_dirs: folders of ``.md`` templates, read in order (the first file with a
            given id wins).
        chroma_url: a Chroma server (``http://host:8000``); stores templates in its
            ``reasoning_templates`` collection instead of the SQLite index.
        chroma_path: a local Chroma folder (embedded persistent client), same collection.
    """

    embedding_model: str | None = None
    top_k: int = Field(default=3, ge=1, le=50)
    similarity_threshold: float | None = Field(default=None, ge=-1.0, le=1.0)
    template_dirs: tuple[Path, ...] = tuple(Path(d) for d in DEFAULT_TEMPLATE_DIRS)
    chroma_url: str | None = None
    chroma_path: Path | None = None

    def threshold(self) -> float:
        """The similarity threshold in force: explicit, else calibrated for the model."""
        if self.similarity_threshold is not None:
            return self.similarity_threshold
        return threshold_for(self.embedding_model)

    @property
    def uses_chroma(self) -> bool:
        """Whether templates live in Chroma rather than in the SQLite index."""
        return self.chroma_url is not None or self.chroma_path is not None
