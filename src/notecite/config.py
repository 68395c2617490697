"""Settings: defaults < TOML file < ``NOTECITE_*`` environment < CLI flags.

Nested keys use ``__`` in the environment (``NOTECITE_EMBEDDER__NAME=hash``) and tables in
TOML (``[embedder] name = "hash"``). Unknown keys are an error. The data directory is
``NOTECITE_HOME`` (default: the platform's user data dir); the TOML file is
``NOTECITE_CONFIG``, else ``<home>/config.toml`` when it exists.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from notecite.config_errors import describe_validation_error, unknown_env_names
from notecite.errors import ConfigError


def default_home() -> Path:
    """``NOTECITE_HOME`` if set, else the platform user data directory."""
    env = os.environ.get("NOTECITE_HOME")
    return Path(env) if env else Path(platformdirs.user_data_dir("notecite", appauthor=False))


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbedderSettings(_Section):
    """Which embedding provider to use and how to reach it."""

    name: str = "minilm"
    model: str | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    dimensions: int | None = None
    batch_size: int = Field(default=32, ge=1, le=2048)
    timeout_s: float = Field(default=60.0, gt=0)
    threads: int = Field(default=0, ge=0, description="0 = onnxruntime's choice")
    activations: Literal["int8", "float"] | None = Field(
        default=None,
        description=(
            "minilm: int8 (about twice as fast, vectors within ~0.99 cosine) or float; "
            "unset: what the index was built with, int8 for a new one"
        ),
    )


class StoreSettings(_Section):
    """Where the index lives."""

    backend: Literal["sqlite", "postgres"] = "sqlite"
    path: Path | None = Field(default=None, description="the SQLite file (sqlite backend)")
    url: SecretStr | None = Field(default=None, description="postgresql://... (postgres backend)")
    hnsw_ef_search: int = Field(
        default=200, ge=1, le=1000, description="pgvector HNSW recall (see docs/postgres.md)"
    )


class IndexSettings(_Section):
    """What the indexer reads and how it cuts notes."""

    extensions: tuple[str, ...] = (".md", ".markdown", ".org", ".txt", ".html", ".htm", ".pdf")
    max_file_bytes: int = Field(default=20_000_000, ge=1)
    chunk_overlap_tokens: int = Field(default=32, ge=0)
    chunk_max_tokens: int | None = Field(
        default=None, ge=16, description="default: the embedder's token limit"
    )
    ignore_dirs: tuple[str, ...] = ("node_modules", "__pycache__")
    sentence_vectors: bool = Field(
        default=True,
        description="also embed each sentence window of a chunk, for max-sim scoring",
    )
    sentence_method: Literal["separate", "late"] = Field(
        default="separate",
        description=(
            "separate: embed each sentence window on its own (a second pass); late: pool "
            "the chunk's own token states over each window (one pass; embedders that can)"
        ),
    )
    lock_wait_s: float = Field(
        default=10.0, ge=0, description="wait this long for another index run of a vault"
    )


class SearchSettings(_Section):
    """Defaults of `search` (it ranks with the ``[retrieval]`` fusion, as ask does)."""

    k: int = Field(default=8, ge=1, le=200)


class GenerationSettings(_Section):
    """How the LLM provider is reached and sampled (the provider itself is ``llm``)."""

    model: str | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    model_path: Path | None = Field(default=None, description="local: a GGUF file to use")
    model_dir: Path | None = Field(default=None, description="local: default <home>/models")
    # 0: the most likely words, the same answer to the same question and evidence (at 0.3 the
    # bundled model gave ten questions of the vault QA dev split ten different answers)
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=512, ge=1, le=32768)
    timeout_s: float = Field(default=30.0, gt=0)
    local_timeout_s: float = Field(default=300.0, gt=0, description="local model on a CPU")
    retries: int = Field(default=2, ge=0, le=10)
    context_size: int = Field(default=4096, ge=512)
    threads: int = Field(default=0, ge=0, description="local: 0 = all cores")
    # Both tuned for a quiet machine (bench/llama_runtime.py): with the weights as stored,
    # the model reads a prompt ~9 % faster (what a person waits for before the first words)
    # and writes ~18 % slower; a short spin writes ~40 % faster than sleeping at once.
    # Beside CPU-bound work both cost writing speed (9 tokens/s against 15 the other way).
    repack_weights: bool = Field(
        default=False,
        description="local: repack the weights at load (faster writing, slower prompt "
        "reading; true on a machine that is often busy)",
    )
    spin_wait: bool = Field(
        default=True,
        description="local: llama.cpp's threads spin briefly at each barrier before they sleep "
        "(faster on a quiet machine; false on one that is often busy); read at the first "
        "load in a process, and the environment's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins",
    )


class AskSettings(_Section):
    """The ask pipeline's knobs; thresholds are calibrated for the bundled embedder."""

    vector_threshold: float = Field(default=0.27, ge=0, le=1)
    final_threshold: float = Field(default=0.26, ge=0, le=1)
    hits_per_scope: int = Field(default=15, ge=1, le=200)
    keyword_depth: int = Field(
        default=4,
        ge=1,
        le=20,
        description="BM25 hits taken per scope, as a multiple of hits_per_scope: a chunk "
        "that BM25 ranks past the first few still brings its keyword score to the fusion",
    )
    max_candidates: int = Field(default=200, ge=1, le=2000)
    k_min: int = Field(default=3, ge=1)
    k_default: int = Field(default=5, ge=1)
    k_max: int = Field(default=8, ge=1)
    folder_ranking: Literal["scores", "llm", "off"] = Field(
        default="scores",
        description="scores: rank folders by the best scores of one search, no model call "
        "(the default); llm: the model picks folders first (a call per question, cached); "
        "off: no ranking. true/false of older configs mean llm/off",
    )
    question_parts: bool = Field(
        default=True,
        description="search each part of a question that asks two things ('how do I X, and "
        "which version brought Y?') on its own, and put each part's best chunk in the context",
    )
    answerability_gate: bool = Field(
        default=True,
        description="abstain before any model call when the calibrated gate says the kept "
        "chunks cannot answer (docs/answerability.md)",
    )
    answerability_threshold: float | None = Field(
        default=None, ge=0, le=1, description="override the gate's fitted threshold"
    )
    answerability_read_threshold: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="override the gate's fitted threshold for questions the reading check "
        "can decide: under the gate's threshold and at or over this, a model that weighs "
        "yes/no is asked whether the context answers before it writes (docs/answerability.md)",
    )
    reading_check: bool = Field(
        default=True,
        description="once it has answered, ask the model whether the context holds what the "
        "question asks for, and abstain when it says no (a model that gives its word "
        "probabilities: the local one; docs/answerability.md)",
    )
    reading_threshold: float = Field(
        default=0.57,
        ge=0,
        le=1,
        description="the model's P(yes) under which the reading check abstains, fitted on "
        "the dev questions for the bundled model (docs/answerability.md)",
    )
    doubted_reading_threshold: float = Field(
        default=0.62,
        ge=0,
        le=1,
        description="the same, for a question the answerability gate doubts, read before "
        "the answer is written (docs/answerability.md)",
    )
    grounding: Literal["off", "terms", "vectors"] = Field(
        default="terms",
        description="check each claim against a line of the notes: by shared terms, or by "
        "shared terms and sentence vectors; unsupported claims are removed",
    )
    quote_unsupported: bool = Field(
        default=True,
        description="when grounding leaves no claim of the written answer, the abstention "
        "(insufficient_information) quotes the lines of the notes closest to the question, "
        "cited (false: it lists the notes read, uncited)",
    )
    rewrite_from_quotes: bool = Field(
        default=True,
        description="before that abstention, the model writes once more from those lines "
        "alone; an answer that then holds up against the notes stands, the lines after it",
    )
    context_tokens: int = Field(default=4000, ge=64, description="context budget, remote LLMs")
    context_tokens_local: int = Field(default=2000, ge=64, description="for the local model")
    context: Literal["evidence", "chunks"] = Field(
        default="evidence",
        description="evidence: only the lines of each retrieved chunk that carry the answer, "
        "with their neighbours (a short prompt: fast on a local model); chunks: whole chunks "
        "up to the context budget",
    )
    evidence_tokens: int = Field(
        default=1200, ge=64, description="evidence budget at detail=normal, remote LLMs"
    )
    evidence_tokens_local: int = Field(
        default=280, ge=64, description="evidence budget at detail=normal, the local model"
    )
    max_folders_ranked: int = Field(default=200, ge=1)
    log_queries: bool = Field(
        default=True, description="keep questions and answers in the query log table"
    )
    auto_rag: Literal["off", "auto", "always"] = Field(
        default="auto", description="HyDE + query rewriting + a second pass on weak retrieval"
    )
    auto_rag_min_score: float = Field(
        default=0.40, ge=0, le=1, description="a top gate score under this is weak retrieval"
    )
    auto_rag_min_kept: int = Field(default=3, ge=1, description="fewer kept chunks is weak")
    auto_rag_max_absent: float = Field(
        default=0.4,
        ge=0,
        le=1,
        description="weak retrieval for a question with at least this share of its terms in "
        "no note is off-topic: auto-RAG does not ask the model to search again (1: never skip)",
    )
    auto_rag_local: bool = Field(
        default=False,
        description="auto: also ask the bundled local model for HyDE and a rewrite (5-25 s a "
        "weak question on 2 cores); off, its second pass only searches deeper",
    )
    auto_rag_timeout_s: float = Field(default=20.0, gt=0, description="per LLM step")
    auto_rag_depth: int = Field(
        default=3, ge=1, le=20, description="the second pass searches hits_per_scope x this"
    )
    multi_query: bool = Field(default=False, description="auto-RAG: several rewrites, RRF")
    multi_query_rewrites: int = Field(default=3, ge=1, le=8)
    query_cache_entries: int = Field(default=100, ge=1)
    query_cache_ttl_s: float = Field(default=300.0, gt=0)
    result_cache_entries: int = Field(default=256, ge=1)

    @field_validator("folder_ranking", mode="before")
    @classmethod
    def _folder_ranking_of_old_configs(cls, value: object) -> object:
        """``folder_ranking = true/false`` (before the modes) means ``llm``/``off``."""
        if isinstance(value, bool):
            return "llm" if value else "off"
        if isinstance(value, str) and value.lower() in {"true", "false"}:
            return "llm" if value.lower() == "true" else "off"
        return value


class RetrievalSettings(_Section):
    """Candidate fusion, recency, doc-type weights and reranking."""

    strategy: Literal["weighted", "rrf", "vector_lexical"] = "weighted"
    reranker: str = Field(
        default="lexical",
        description="lexical | e5 | cross-encoder | none (none: the gate sees cosine only)",
    )
    model_rerank_depth: int = Field(
        default=20, ge=1, le=200, description="candidates re-scored by e5 or a cross-encoder"
    )
    model_rerank_weight: float = Field(
        default=0.5, ge=0, le=1, description="share of the model's score in the final score"
    )
    e5_cache: bool = Field(default=True, description="keep e5 passage vectors in <home>/cache")
    e5_index_vectors: bool = Field(
        default=False,
        description="with reranker e5: compute the passage vectors of new chunks while indexing",
    )
    cross_encoder_path: Path | None = Field(default=None, description="an ONNX cross-encoder")
    cross_encoder_tokenizer: Path | None = Field(
        default=None, description="its tokenizer.json (default: next to the model)"
    )
    cross_encoder_url: str | None = Field(
        default=None, description="a /rerank endpoint (Cohere, Jina or TEI format)"
    )
    cross_encoder_model: str | None = None
    cross_encoder_api_key: SecretStr | None = None
    cross_encoder_timeout_s: float = Field(default=10.0, gt=0)
    rerank_depth: int = Field(default=60, ge=1, description="candidates scored by the reranker")
    vector_weight: float = Field(default=0.6, ge=0)
    sentence_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="dense score = (1 - w) x chunk cosine + w x best sentence cosine",
    )
    keyword_weight: float = Field(default=0.25, ge=0)
    recency_weight: float = Field(default=0.15, ge=0)
    rrf_k: int = Field(default=60, ge=1)
    recency_half_life_days: float = Field(default=365.0, gt=0)
    time_hint_recency_weight: float = Field(default=0.35, ge=0)
    release_weight: float = Field(
        default=1.6,
        ge=0,
        description="weight of release notes' candidates when a question asks in which "
        "release or version, or when, something arrived (1 = off)",
    )
    superseded_weight: float = Field(
        default=0.8,
        ge=0,
        description="weight of the candidates of a note whose path says legacy, deprecated, "
        "archive(d) or obsolete (a title: deprecated, archived, obsolete), unless the question "
        "asks for old things (1 = off)",
    )
    doc_type_weights: dict[str, float] = Field(
        default_factory=lambda: {
            "profile": 1.15,
            "project": 1.15,
            "kb": 1.10,
            "blog": 1.00,
            "photo": 0.30,
        }
    )
    weights: dict[str, dict[str, Annotated[float, Field(ge=0)]]] = Field(
        default_factory=dict,
        description="frontmatter key -> value -> weight of a note's candidates, e.g. "
        "[retrieval.weights.persona] mentor = 1.2; 'type' adds to doc_type_weights",
    )


class ChatSettings(_Section):
    """Chat sessions: how much history goes into the prompt and whether follow-ups are condensed."""

    history_turns: int = Field(
        default=6, ge=0, le=50, description="earlier question/answer pairs put in the prompt"
    )
    condense_follow_ups: bool = Field(
        default=True, description="rewrite a follow-up into a standalone query before retrieval"
    )


DEFAULT_TENANT = "default"
TENANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
# a host name or IPv4 address, '*.' + a domain, '*', or a bracketed IPv6 address (no port)
ALLOWED_HOST = re.compile(r"\*|(?:\*\.)?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\]")
"""What a tenant name may look like (letters, digits, ``_``, ``.``, ``-``; at most 100)."""


class ServerSettings(_Section):
    """`notecite serve`: where it listens and the API keys it accepts (bearer tokens).

    ``api_keys`` are keys of the ``default`` tenant; ``tenant_keys`` maps other tenant names
    to their keys (``[server.tenant_keys] acme = ["..."]``). A request's key decides the
    tenant whose vaults, notes and sessions it sees. With no key at all, every request is
    the default tenant's (loopback only).

    ``vault_roots`` (default tenant) and ``tenant_vault_roots`` (tenant name -> folders) say
    where a tenant may add vaults over the API: a vault's folder, symlinks resolved, must lie
    under one of them. A server with keys refuses API vaults of a tenant with no roots; a
    keyless loopback server with no roots accepts any folder. The CLI is never restricted.

    ``allowed_hosts`` are the host names (the request's ``Host`` header, any port) the server
    answers besides the loopback ones (``localhost``, ``127.0.0.1``, ``[::1]``), which it always
    answers: ``notes.example.org``, ``*.example.org`` for its subdomains, ``*`` for any. Left
    empty, a server without API keys answers loopback names only (a web page cannot reach it
    by DNS rebinding) and a server with keys answers any name.
    """

    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=1, le=65535)
    preload_llm: bool = Field(
        default=True,
        description="assemble and load the local model before serving, so the first "
        "question does not wait for it",
    )
    api_keys: list[SecretStr] = Field(
        default_factory=list, description="keys of the default tenant"
    )
    tenant_keys: dict[str, list[SecretStr]] = Field(
        default_factory=dict, description="tenant name -> its API keys"
    )
    vault_roots: list[Path] = Field(
        default_factory=list,
        description="folders the default tenant may add vaults from over the API",
    )
    tenant_vault_roots: dict[str, list[Path]] = Field(
        default_factory=dict, description="tenant name -> folders it may add vaults from (API)"
    )
    max_request_bytes: int = Field(
        default=1_000_000, ge=1024, description="larger request bodies are refused (413)"
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description=(
            "host names answered besides localhost, 127.0.0.1 and [::1] ('*.example.org', "
            "'*' for any); empty: loopback only without API keys, any host with keys"
        ),
    )
    note_uri_template: str = Field(
        default="/view/{vault}/{path}?section={section}",
        min_length=1,
        description=(
            "where the web page's citation links open a note; {vault}, {path} and {section} "
            "are filled in URL-encoded (default: notecite's own note view; e.g. "
            "obsidian://open?vault={vault}&file={path})"
        ),
    )

    @model_validator(mode="after")
    def _check_tenant_keys(self) -> ServerSettings:
        seen: set[str] = set()
        for tenant, key in self.keys_by_tenant():
            if not TENANT_NAME.fullmatch(tenant):
                raise ValueError(
                    f"invalid tenant name {tenant!r}: use letters, digits, '_', '.', '-'"
                )
            secret = key.get_secret_value()
            if not secret.strip():
                raise ValueError(f"an API key of tenant {tenant!r} is empty")
            if secret in seen:
                raise ValueError(f"an API key is given twice (tenant {tenant!r})")
            seen.add(secret)
        self.allowed_hosts = [host.strip().lower().rstrip(".") for host in self.allowed_hosts]
        for host in self.allowed_hosts:
            if not ALLOWED_HOST.fullmatch(host):
                raise ValueError(
                    f"invalid entry {host!r} in server.allowed_hosts: give a host name without "
                    "scheme or port ('notes.example.org'), '*.example.org' or '*'"
                )
        if DEFAULT_TENANT in self.tenant_vault_roots:
            raise ValueError("the default tenant's vault roots go in server.vault_roots")
        for tenant, roots in [(DEFAULT_TENANT, self.vault_roots), *self.tenant_vault_roots.items()]:
            if not TENANT_NAME.fullmatch(tenant):
                raise ValueError(
                    f"invalid tenant name {tenant!r} in tenant_vault_roots: use letters, "
                    "digits, '_', '.', '-'"
                )
            for root in roots:
                if not root.expanduser().is_absolute():
                    raise ValueError(
                        f"vault root {str(root)!r} of tenant {tenant!r} is not an absolute path"
                    )
        return self

    def vault_roots_of(self, tenant: str) -> list[Path] | None:
        """The folders under which ``tenant`` may add vaults over the API.

        ``None`` means anywhere: a server with no API key (loopback, single user) and no roots
        configured for the tenant. With keys configured, a tenant with no roots gets ``[]``:
        no vault may be added over the API.
        """
        if tenant == DEFAULT_TENANT:
            roots = self.vault_roots
        else:
            roots = self.tenant_vault_roots.get(tenant, [])
        if roots:
            return [root.expanduser() for root in roots]
        return [] if self.keys_by_tenant() else None

    def answers_any_host(self) -> bool:
        """Does the server answer every ``Host`` (``*`` listed, or keys and no list)?"""
        if "*" in self.allowed_hosts:
            return True
        return not self.allowed_hosts and bool(self.keys_by_tenant())

    def keys_by_tenant(self) -> list[tuple[str, SecretStr]]:
        """Every configured key with the tenant it belongs to."""
        pairs = [(DEFAULT_TENANT, key) for key in self.api_keys]
        for tenant, keys in self.tenant_keys.items():
            pairs.extend((tenant, key) for key in keys)
        return pairs


class TemplateSettings(_Section):
    """Reasoning-template retrieval (``[templates]``); mirrors the RAGConfig contract."""

    template_dirs: tuple[Path, ...] | None = Field(
        default=None, description="default: data/bot-buffer and data/templates"
    )
    top_k: int = Field(default=3, ge=1, le=50)
    similarity_threshold: float | None = Field(
        default=None, ge=-1.0, le=1.0, description="default: calibrated for the embedder"
    )
    chroma_url: str | None = None
    chroma_path: Path | None = None


class Settings(BaseSettings):
    """All notecite settings."""

    model_config = SettingsConfigDict(
        env_prefix="NOTECITE_",
        env_nested_delimiter="__",
        extra="forbid",
    )

    home: Path = Field(default_factory=default_home)
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    llm: str | None = Field(default=None, description="LLM provider; default local or extractive")
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    ask: AskSettings = Field(default_factory=AskSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    templates: TemplateSettings = Field(default_factory=TemplateSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)

    @property
    def db_path(self) -> Path:
        """The SQLite file of the embedded store."""
        return self.store.path or self.home / "notecite.db"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file = cls.model_config.get("toml_file")
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if toml_file:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_file))
        return tuple(sources)


def config_file_path(explicit: Path | None = None, home: Path | None = None) -> Path | None:
    """The TOML file to read: explicit, ``NOTECITE_CONFIG``, or ``<home>/config.toml``."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"config file not found: {explicit}")
        return explicit
    env = os.environ.get("NOTECITE_CONFIG")
    if env:
        path = Path(env)
        if not path.is_file():
            raise ConfigError(f"NOTECITE_CONFIG points to a missing file: {path}")
        return path
    candidate = (home or default_home()) / "config.toml"
    try:
        return candidate if candidate.is_file() else None
    except OSError:  # an unreadable home is reported when the store opens, not here
        return None


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Merge defaults, the TOML file, the environment and ``overrides`` (CLI flags).

    Raises:
        ConfigError: a value is invalid or a key is unknown.
    """
    home = overrides.get("home")
    toml_file = config_file_path(config_file, Path(home) if home is not None else None)
    settings_cls: type[Settings] = Settings
    if toml_file is not None:
        settings_cls = type(
            "Settings",
            (Settings,),
            {
                "model_config": SettingsConfigDict(
                    **{**Settings.model_config, "toml_file": toml_file}
                )
            },
        )
    unknown = unknown_env_names(Settings)
    if unknown:
        raise ConfigError(unknown)
    try:
        return settings_cls(**overrides)
    except ValidationError as exc:
        raise ConfigError(
            "invalid settings: " + describe_validation_error(exc, Settings, toml_file)
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {toml_file} is not valid TOML: {exc}") from exc


def masked_settings(settings: Settings) -> dict[str, Any]:
    """Settings as JSON-ready data with secrets masked."""
    data: dict[str, Any] = settings.model_dump(mode="json")
    return data
