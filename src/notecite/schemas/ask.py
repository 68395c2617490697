"""The ask contract: AskRequest, AskResponse and DebugInfo, with the JSON field names of the API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Detail = Literal["brief", "normal", "detailed"]
CitationStyle = Literal["numbered", "file_section"]
AbstainReason = Literal[
    "no_relevant_context",
    "insufficient_information",
    "ambiguous_question",
    "no_notes",
    "not_mentioned",
    "no_matching_notes",
]
AutoRagMode = Literal["off", "auto", "always"]

MAX_QUESTION_CHARS = 2000


class AskRequest(BaseModel):
    """A question, its scope and how to answer it."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    vaults: list[str] = Field(default_factory=list)
    folders: list[str] = Field(default_factory=list)
    k: int | None = Field(default=None, description="legacy override, clamped to 3-8")
    detail: Detail = "normal"
    debug: bool = False
    citation_style: CitationStyle = "numbered"
    llm: str | None = Field(default=None, description="LLM provider for this request")
    auto_rag: AutoRagMode | None = Field(
        default=None, description="off | auto (on weak retrieval) | always; default: config"
    )
    multi_query: bool | None = Field(
        default=None, description="auto-RAG searches several rewrites fused with RRF"
    )
    filters: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="frontmatter filters, all of which a note must meet: tags=atlas, "
        "tags in [atlas, launch], tags^=projects/, status!=draft, has:due, created>=2024-01-01",
    )


class Reference(BaseModel):
    """A cited chunk: where it is, the marker that cites it, and the line that supports it.

    ``cid`` is the marker in the answer (``N1``): several references share one when the
    model saw their chunks merged into one block. ``quote`` and ``quote_line`` are the line of
    the note that supports the claims citing it (None when no claim was checked).
    """

    vault: str
    rel_path: str
    heading_path: str
    chunk_index: int
    cid: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    quote: str | None = None
    quote_line: int | None = None


class ClaimCheck(BaseModel):
    """One claim of the answer and how the notes support it (debug view)."""

    text: str
    status: Literal["supported", "recited", "unsupported", "neutral"]
    score: float
    cid: str | None = None
    quote: str | None = None
    line: int | None = None
    repaired: bool = False


class RetrievedChunk(BaseModel):
    """One candidate considered in reranking, with every score."""

    chunk_id: str
    vault: str
    rel_path: str
    heading_path: str
    text: str
    score_vector: float
    score_lexical: float
    score_final: float
    score_dense: float = 0.0
    score_bm25: float = 0.0
    score_gate: float = 0.0
    score_rerank: float = 0.0
    rank: int
    kept: bool = False
    cited: bool = False


class FolderSelection(BaseModel):
    """Folders chosen for the search, in ``vault/folder`` form."""

    selected: list[str] = Field(default_factory=list)
    available: list[str] = Field(default_factory=list)
    method: str = "all"  # all | user | llm | scores (ranked by the search, no model call)


class Timings(BaseModel):
    """Milliseconds per stage."""

    embed: float = 0.0
    folder_ranking: float = 0.0
    retrieve: float = 0.0
    rerank: float = 0.0
    generate: float = 0.0
    first_token: float | None = Field(
        default=None, description="from the model call to its first text (streamed answers)"
    )
    first_text: float | None = Field(
        default=None,
        description="from the question to the model's first text: the wait a person sees "
        "(streamed answers; the checks after the answer are not in it)",
    )
    prompt_eval: float | None = Field(
        default=None, description="the model reading its prompt (providers that report it)"
    )
    reading_check: float | None = Field(
        default=None, description="the model weighing whether the context answers the question"
    )
    auto_rag: float = 0.0
    question_parts: float = Field(
        default=0.0, description="searching each part of a question that asks two things"
    )
    total: float = 0.0


class GenerationDebug(BaseModel):
    """What the answer's model call read and wrote, as the provider reported it."""

    prompt_tokens: int = Field(default=0, description="prompt tokens, the model's tokenizer")
    cached_tokens: int = Field(default=0, description="prompt tokens reused from its cache")
    output_tokens: int = 0
    prompt_tokens_per_s: float | None = Field(
        default=None, description="uncached prompt tokens read per second"
    )
    output_tokens_per_s: float | None = None
    context_tokens: int = Field(default=0, description="the context's size (embedder tokens)")


class AutoRagStep(BaseModel):
    """One step of auto-RAG: what ran, how it ended and how long it took."""

    name: str
    status: Literal["ok", "skipped", "timeout", "failed"]
    ms: float = 0.0
    detail: str = ""


class AutoRagDebug(BaseModel):
    """Why auto-RAG ran (or not), its steps, and which retrieval won."""

    mode: AutoRagMode = "off"
    triggered: bool = False
    reason: str = ""
    steps: list[AutoRagStep] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    base_strength: float = 0.0
    auto_strength: float = 0.0
    winner: Literal["base", "auto"] = "base"


class CacheDebug(BaseModel):
    """Whether this request's query embedding and search results came from the caches."""

    query_embedding: Literal["hit", "miss", "off"] = "off"
    search_results: Literal["hit", "miss", "off"] = "off"
    query_hit_rate: float = 0.0
    results_hit_rate: float = 0.0


class DebugInfo(BaseModel):
    """Everything that explains an answer."""

    retrieved_chunks: list[RetrievedChunk] = Field(default_factory=list)
    folder_selection: FolderSelection = Field(default_factory=FolderSelection)
    k: int = 0
    strategy: str = ""
    context_blocks: int = 0
    timings_ms: Timings = Field(default_factory=Timings)
    generation: GenerationDebug | None = None
    raw_answer: str = Field(default="", description="the model's text before any check")
    raw_rewritten: str = Field(
        default="",
        description="the model's text written again from the lines of the notes closest to "
        "the question, when no claim of the first answer held up",
    )
    invalid_citations: list[str] = Field(default_factory=list)
    claims: list[ClaimCheck] = Field(default_factory=list)
    answerability: float | None = Field(
        default=None, description="P(the kept chunks answer the question), the calibrated gate"
    )
    reading: float | None = Field(
        default=None,
        description="the model's P(yes) when asked whether the context answers the question "
        "(the reading check; local model)",
    )
    missing_terms: list[str] = Field(
        default_factory=list, description="salient terms of the question no note mentions"
    )
    absent_from_context: list[str] = Field(
        default_factory=list, description="salient terms in the notes but not in the context"
    )
    question_parts: list[str] = Field(
        default_factory=list,
        description="the parts of a question that asks several things, each searched on its "
        "own so that each part's best chunk reaches the context",
    )
    uncited_references: bool = False
    notes: list[str] = Field(default_factory=list)
    llm: str = ""
    auto_rag: AutoRagDebug = Field(default_factory=AutoRagDebug)
    cache: CacheDebug = Field(default_factory=CacheDebug)
    reranker: str = ""
    filters: list[str] = Field(
        default_factory=list,
        description="frontmatter filters applied: the request's, then those in the question",
    )
    searched_question: str | None = Field(
        default=None,
        description=(
            "the question as searched: its inline filters taken out, and any name it gives "
            "the asker's own note, folder or tag"
        ),
    )


class ErrorInfo(BaseModel):
    """A failure that did not stop the response (e.g. the LLM was down)."""

    type: str
    message: str


class AskResponse(BaseModel):
    """The answer, the chunks it cites, and why it abstained if it did."""

    answer: str
    references: list[Reference] = Field(default_factory=list)
    abstained: bool = False
    abstain_reason: AbstainReason | None = None
    debug: DebugInfo | None = None
    error: ErrorInfo | None = None
