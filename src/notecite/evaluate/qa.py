"""`notecite eval qa`: ask the questions of a QA file (see :mod:`qa_data`) through
``Engine.ask`` and score the answers (see :mod:`qa_metrics`).

Each question is asked of its vault (and folders). A vault is a folder of notes indexed into
its own store, ``<home>/eval/qa-<vault>.db`` (a second run embeds nothing), or the name of a
vault registered in the index. The folder of a vault named in the file comes from
``--vault NAME=FOLDER``, else from ``vaults.json`` beside the data file (``{"name": "path"}``,
paths relative to that file), else the registered vault of that name is used. Lines without
a vault are asked of the bare ``--vault FOLDER_OR_NAME``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from notecite.config import Settings
from notecite.engine import Engine
from notecite.errors import ConfigError, LLMError, VaultError
from notecite.evaluate.beir import eval_settings
from notecite.evaluate.qa_data import QaItem, load_qa, select
from notecite.evaluate.qa_metrics import (
    QaOutcome,
    QaReport,
    declined,
    holds,
    matches_gold,
    score_qa,
)
from notecite.schemas.ask import AskRequest, AskResponse

MANIFEST = "vaults.json"


@dataclass(frozen=True)
class VaultTarget:
    """Where the questions of one vault are asked: a folder (indexed into its own store)
    or, when ``folder`` is None, the vault ``name`` of the configured index."""

    name: str
    folder: Path | None


@dataclass(frozen=True)
class QaRecord:
    """One question as asked, for studying failures (one line of ``--out``)."""

    id: str
    kind: str
    vault: str
    split: str | None
    question: str
    answer: str
    abstained: bool
    abstain_reason: str | None
    counted_abstained: bool
    gold_cited: bool | None
    must_contain: bool | None
    gold_files: list[str]
    references: list[dict[str, Any]]
    retrieved_files: list[str]
    timings_ms: dict[str, float]
    wall_ms: float
    llm: str = ""
    error: str | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    raw: str = ""
    raw_rewritten: str = ""  # written again from the quoted lines, when nothing held up
    answerability: float | None = None  # the gate's P(answerable), when it ran
    reading: float | None = None  # the reading check's P(yes), when it ran


@dataclass(frozen=True)
class QaRun:
    """The report and the per-question records of one run."""

    report: QaReport
    records: list[QaRecord] = field(default_factory=list)

    @property
    def llms(self) -> list[str]:
        """The LLM providers that answered (as the debug output names them)."""
        return list(dict.fromkeys(r.llm for r in self.records if r.llm))


def parse_vault_options(options: Sequence[str]) -> tuple[dict[str, str], str | None]:
    """``NAME=FOLDER`` options by name, and the one bare option (for lines without a vault)."""
    named: dict[str, str] = {}
    bare = None
    for option in options:
        name, sep, folder = option.partition("=")
        if sep:
            if not name or not folder:
                raise ConfigError(f"--vault {option!r}: use NAME=FOLDER")
            named[name] = folder
        elif bare is not None:
            raise ConfigError("give --vault FOLDER_OR_NAME once; name the others NAME=FOLDER")
        else:
            bare = option
    return named, bare


def resolve_targets(
    items: Sequence[QaItem], data: Path, named: Mapping[str, str], bare: str | None
) -> dict[str | None, VaultTarget]:
    """The target of each vault the items name (key None: lines without a vault)."""
    manifest = _manifest(data.parent / MANIFEST)
    targets: dict[str | None, VaultTarget] = {}
    for key in dict.fromkeys(i.vault for i in items):
        if key is None:
            if bare is None:
                raise ConfigError("some questions name no vault: pass --vault FOLDER_OR_NAME")
            folder = Path(bare).expanduser()
            targets[None] = (
                VaultTarget(folder.resolve().name or "vault", folder)
                if folder.is_dir()
                else VaultTarget(bare, None)
            )
            continue
        where = named.get(key) or manifest.get(key)
        if where is None:
            targets[key] = VaultTarget(key, None)
            continue
        folder = Path(where).expanduser()
        if not folder.is_dir():
            raise ConfigError(f"vault {key!r}: folder not found: {folder}")
        targets[key] = VaultTarget(key, folder)
    return targets


def _manifest(path: Path) -> dict[str, Path]:
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{path} is not JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected an object of vault name -> folder")
    return {str(name): path.parent / str(folder) for name, folder in raw.items()}


def run_qa(
    settings: Settings,
    data: Path,
    vaults: Sequence[str] = (),
    *,
    k: int = 5,
    llm: str | None = None,
    split: str = "all",
    limit: int | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> QaRun:
    """Ask every selected question of ``data`` and score the answers.

    Args:
        settings: the merged settings (its home holds the evaluation stores).
        data: the JSONL file of questions.
        vaults: ``--vault`` options: ``NAME=FOLDER``, and at most one bare folder or vault
            name for lines that name no vault.
        k: files counted by "gold retrieved".
        llm: the LLM provider that answers (default: the configured one).
        split: ``dev``, ``test`` or ``all``.
        limit: ask only the first ``limit`` selected questions.
        progress: receives one line per indexing report and per question.
    """
    items = select(load_qa(data), split, limit)
    named, bare = parse_vault_options(vaults)
    targets = resolve_targets(items, data, named, bare)
    outcomes: dict[str, QaOutcome] = {}
    records: dict[str, QaRecord] = {}
    done = 0
    for key, target in targets.items():
        group = [i for i in items if i.vault == key]
        with _open_engine(settings, target, progress) as engine:
            engine.embedder.embed_query("warm-up")  # loads the models outside the timings
            engine.prepare_llm(llm)  # as `notecite serve` does before its first question
            for item in group:
                outcome, record = _ask(engine, target.name, item, llm)
                outcomes[item.id], records[item.id] = outcome, record
                done += 1
                state = "abstained" if record.counted_abstained else "answered"
                progress(f"{done}/{len(items)} {item.id} {state} {record.wall_ms / 1000:.1f} s")
    ordered = [outcomes[i.id] for i in items]
    return QaRun(score_qa(items, ordered, k), [records[i.id] for i in items])


def _open_engine(
    settings: Settings, target: VaultTarget, progress: Callable[[str], None]
) -> Engine:
    if target.folder is None:
        engine = Engine(settings)
        if engine.store.get_vault(target.name) is None:
            engine.close()
            raise VaultError(
                f"vault {target.name!r} is neither registered nor given a folder: pass "
                f"--vault {target.name}=FOLDER, or list it in {MANIFEST} beside the data file"
            )
        return engine
    engine = Engine(eval_settings(settings, f"qa-{target.name}"))
    try:
        wanted = target.folder.expanduser().resolve()
        known = engine.store.get_vault(target.name)
        if known is not None and known.path != wanted:
            progress(f"{target.name}: the folder moved to {wanted}; indexing it afresh")
            engine.remove_vault(target.name)
            known = None
        if known is None:
            engine.add_vault(target.name, wanted)
        progress(f"indexing {target.name} (only new or changed notes are embedded)")
        for report in engine.index(target.name):
            progress(report.summary())
    except BaseException:
        engine.close()
        raise
    return engine


def _ask(engine: Engine, vault: str, item: QaItem, llm: str | None) -> tuple[QaOutcome, QaRecord]:
    request = AskRequest(
        question=item.question, vaults=[vault], folders=list(item.folders), debug=True, llm=llm
    )
    started = time.perf_counter()
    error = None
    try:
        # streamed, as a person sees it, so the time to the first text is measured
        response = engine.ask(request, on_token=lambda _piece: None)
    except LLMError as exc:  # one failing answer is a data point, not the end of the run
        response = AskResponse(answer="", abstained=True)
        error = f"{type(exc).__name__}: {exc}"
    wall_ms = (time.perf_counter() - started) * 1000
    outcome = outcome_of(response, wall_ms)
    if response.error is not None and error is None:
        error = f"{response.error.type}: {response.error.message}"
    record = QaRecord(
        id=item.id,
        kind=item.kind_or_default,
        vault=vault,
        split=item.split,
        question=item.question,
        answer=response.answer,
        abstained=response.abstained,
        abstain_reason=response.abstain_reason,
        counted_abstained=declined(item, outcome),
        gold_cited=(
            not outcome.abstained
            and any(matches_gold(p, item.gold_files) for p in outcome.cited_files)
            if item.answerable and item.gold_files
            else None
        ),
        must_contain=(
            not outcome.abstained and holds(outcome.answer, item.must_contain)
            if item.answerable and item.must_contain
            else None
        ),
        gold_files=list(item.gold_files),
        references=[r.model_dump(mode="json") for r in response.references],
        retrieved_files=list(outcome.retrieved_files),
        timings_ms=response.debug.timings_ms.model_dump() if response.debug else {},
        wall_ms=round(wall_ms, 1),
        llm=response.debug.llm if response.debug else "",
        error=error,
        generation=(
            response.debug.generation.model_dump()
            if response.debug and response.debug.generation
            else {}
        ),
        raw=response.debug.raw_answer if response.debug else "",
        raw_rewritten=response.debug.raw_rewritten if response.debug else "",
        answerability=response.debug.answerability if response.debug else None,
        reading=response.debug.reading if response.debug else None,
    )
    return outcome, record


def outcome_of(response: AskResponse, wall_ms: float = 0.0) -> QaOutcome:
    """Files in retrieval rank order (distinct) and cited files, from a debug response."""
    chunks = response.debug.retrieved_chunks if response.debug else []
    retrieved = tuple(dict.fromkeys(c.rel_path for c in chunks))
    cited = tuple(dict.fromkeys(r.rel_path for r in response.references))
    return QaOutcome(retrieved, cited, response.answer, response.abstained, wall_ms)


def write_records(records: Sequence[QaRecord], path: Path) -> None:
    """One JSON line per question."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
