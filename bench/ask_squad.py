"""Ask-pipeline benchmark on SQuAD 2.0 dev: answer rate, abstention, citation hits, latency.

The 16 articles of ``/work/shared/data/squad2-dev/dev-v2.0.json`` become 16 markdown notes
(``# Title``, one ``## Paragraph N`` section per paragraph), indexed with minilm into a SQLite
file cached under ``bench/out/squad/``. A fixed sample (seed 0) of questions is asked through
``Engine.ask(AskRequest(question=..., debug=True))`` with ``AskSettings.folder_ranking`` off
(one flat vault) and the configured thresholds:

* ``extractive``: ``--n`` questions, half answerable, half unanswerable;
* ``local`` (the bundled Qwen2.5-Coder-1.5B, ``--threads`` generation threads): the first
  ``--local-n`` of the same sample, alternating answerable / unanswerable, until the
  ``--budget-s`` wall-clock budget is spent (a question is not started past it).

Metrics: answer rate on answerable questions (not abstained), abstention rate on
unanswerable ones, the share of answers whose cited chunk(s) contain a reference answer
string (case-insensitive; answerable questions that were answered), and p50 of each stage of
``debug.timings_ms``.

    python bench/ask_squad.py --providers extractive
    python bench/ask_squad.py --providers local --local-n 60 --budget-s 1500
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from _measure import REPO, machine, median
from notecite.config import (
    AskSettings,
    EmbedderSettings,
    GenerationSettings,
    Settings,
    StoreSettings,
)
from notecite.engine import Engine
from notecite.generate.base import LLM, ChatMessage, GenerationRequest
from notecite.schemas.ask import AskRequest, AskResponse
from notecite.store.sqlite import SQLiteStore

SQUAD = Path("/work/shared/data/squad2-dev/dev-v2.0.json")
OUT = REPO / "bench" / "out" / "squad"
MODELS = REPO / "bench" / "out" / "models"
STAGES = ("embed", "retrieve", "rerank", "generate", "total")


@dataclass(frozen=True)
class Question:
    """One SQuAD question with where it came from."""

    qid: str
    question: str
    answers: tuple[str, ...]
    note: str
    paragraph: int

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass
class Outcome:
    """What the engine did with one question."""

    qid: str
    answerable: bool
    abstained: bool
    abstain_reason: str | None
    error: str | None
    cited_has_answer: bool
    cited_right_paragraph: bool
    cited: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    answer: str = ""
    raw: str = ""  # what the model wrote, before its claims were checked
    answerability: float | None = None  # the gate's P(answerable)
    reading: float | None = None  # the reading check's P(yes), when it ran


def note_name(title: str) -> str:
    return f"{title}.md"


def load_questions() -> tuple[list[dict], list[Question]]:  # type: ignore[type-arg]
    data = json.loads(SQUAD.read_text())["data"]
    questions = []
    for article in data:
        for number, paragraph in enumerate(article["paragraphs"], start=1):
            for qa in paragraph["qas"]:
                answers = tuple(dict.fromkeys(a["text"] for a in qa["answers"]))
                questions.append(
                    Question(
                        qa["id"],
                        qa["question"],
                        () if qa.get("is_impossible") else answers,
                        note_name(article["title"]),
                        number,
                    )
                )
    return data, questions


def write_vault(data: list[dict], vault: Path) -> None:  # type: ignore[type-arg]
    vault.mkdir(parents=True)
    for article in data:
        parts = [f"# {article['title'].replace('_', ' ')}", ""]
        for number, paragraph in enumerate(article["paragraphs"], start=1):
            parts += [f"## Paragraph {number}", "", paragraph["context"].strip(), ""]
        (vault / note_name(article["title"])).write_text("\n".join(parts))


def open_engine(
    data: list[dict],  # type: ignore[type-arg]
    out: Path,
    threads: int,
    local_timeout_s: float | None,
    llm: LLM | None = None,
) -> Engine:
    """The engine over the SQuAD notes' index under ``out`` (built on first use), answering
    with the configured providers, or with ``llm`` in their place."""
    db, marker, vault = out / "index.db", out / "index.done", out / "vault"
    settings = Settings(
        home=out,
        store=StoreSettings(path=db),
        embedder=EmbedderSettings(name="minilm"),
        ask=AskSettings(folder_ranking="off"),
        generation=GenerationSettings(threads=threads, model_dir=MODELS),
    )
    if local_timeout_s:
        settings.generation.local_timeout_s = local_timeout_s
    engine = Engine(settings, store=SQLiteStore(db) if marker.is_file() else None, llm=llm)
    if marker.is_file():
        # the vault is written once; a newer parser reads it again (only changed chunks
        # are embedded), so the run measures this code's index, not the first run's
        (report,) = engine.index("squad")
        print(f"index: {report.summary()}", flush=True)
    else:
        engine.close()
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        write_vault(data, vault)
        engine = Engine(settings, store=SQLiteStore(db), llm=llm)
        engine.add_vault("squad", vault)
        start = time.perf_counter()
        (report,) = engine.index("squad")
        print(f"indexed: {report.summary()} in {time.perf_counter() - start:.0f} s", flush=True)
        marker.write_text(report.summary() + "\n")
    return engine


def sample(questions: list[Question], n: int, seed: int) -> list[Question]:
    """n questions, half answerable, half not, alternating (answerable first)."""
    rng = random.Random(seed)
    answerable = rng.sample([q for q in questions if q.answerable], n // 2)
    unanswerable = rng.sample([q for q in questions if not q.answerable], n - n // 2)
    mixed: list[Question] = []
    for i in range(max(len(answerable), len(unanswerable))):
        mixed += answerable[i : i + 1] + unanswerable[i : i + 1]
    return mixed


def judge(q: Question, response: AskResponse) -> Outcome:
    debug = response.debug
    assert debug is not None
    cited = [c for c in debug.retrieved_chunks if c.cited]
    texts = [c.text.lower() for c in cited]
    has_answer = any(a.lower() in t for a in q.answers for t in texts)
    right = any(
        c.rel_path == q.note and c.heading_path.endswith(f"Paragraph {q.paragraph}") for c in cited
    )
    return Outcome(
        qid=q.qid,
        answerable=q.answerable,
        abstained=response.abstained,
        abstain_reason=response.abstain_reason,
        error=response.error.message if response.error else None,
        cited_has_answer=has_answer,
        cited_right_paragraph=right,
        cited=[f"{c.rel_path} > {c.heading_path}" for c in cited],
        timings_ms=debug.timings_ms.model_dump(),
        answer=response.answer,
        raw=debug.raw_answer or "",
        answerability=debug.answerability,
        reading=debug.reading,
    )


def warm_up(engine: Engine, provider: str) -> float:
    """Load the provider's model outside the timed questions; seconds taken."""
    start = time.perf_counter()
    engine.embedder.embed_query("warm up")
    if provider != "extractive":
        request = GenerationRequest(messages=(ChatMessage("user", "Say OK."),), max_tokens=2)
        engine.llm(provider).generate(request)
    return time.perf_counter() - start


def run(
    engine: Engine, provider: str, questions: list[Question], budget_s: float, log: Path
) -> tuple[list[Outcome], float]:
    """Outcomes of the questions asked before the budget ran out."""
    outcomes: list[Outcome] = []
    start = time.perf_counter()
    with log.open("w") as handle:
        for i, q in enumerate(questions, start=1):
            if time.perf_counter() - start > budget_s:
                print(f"budget of {budget_s:.0f} s spent after {i - 1} questions", flush=True)
                break
            response = engine.ask(AskRequest(question=q.question, debug=True, llm=provider))
            outcome = judge(q, response)
            outcomes.append(outcome)
            handle.write(json.dumps({"question": q.question, **asdict(outcome)}) + "\n")
            handle.flush()
            if provider != "extractive":
                print(
                    f"[{i}/{len(questions)}] {'A' if q.answerable else 'U'} "
                    f"abstained={outcome.abstained} hit={outcome.cited_has_answer} "
                    f"{outcome.timings_ms['total'] / 1000:.1f} s "
                    f"{'error ' if outcome.error else ''}"
                    f"(elapsed {time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
    return outcomes, time.perf_counter() - start


def pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "n/a"


def report(provider: str, outcomes: list[Outcome], planned: int, wall_s: float) -> None:
    ans = [o for o in outcomes if o.answerable]
    una = [o for o in outcomes if not o.answerable]
    answered = [o for o in ans if not o.abstained]
    errors = sum(1 for o in outcomes if o.error)
    print(f"\n### {provider}: {len(outcomes)} of {planned} questions in {wall_s:.0f} s")
    print("| metric | value |\n|---|---|")
    print(f"| answer rate, answerable (not abstained) | {pct(len(answered), len(ans))} |")
    failed = sum(1 for o in answered if o.error)
    print(f"| of those, LLM failures (timeout etc.; references only) | {failed} |")
    print(f"| abstention rate, unanswerable | {pct(sum(o.abstained for o in una), len(una))} |")
    hits = sum(o.cited_has_answer for o in answered)
    print(
        f"| cited chunk contains a reference answer (answered answerable) | "
        f"{pct(hits, len(answered))} |"
    )
    right = sum(o.cited_right_paragraph for o in answered)
    print(f"| cited the gold paragraph (answered answerable) | {pct(right, len(answered))} |")
    answered_una = [o for o in una if not o.abstained]
    reasons: dict[str, int] = {}
    for o in outcomes:
        if o.abstained:
            key = o.abstain_reason or "?"
            reasons[key] = reasons.get(key, 0) + 1
    print(f"| abstain reasons | {reasons or '-'} |")
    print(f"| answered unanswerable | {len(answered_una)} |")
    print(f"| LLM errors (fallback to references) | {errors} |")
    for stage in STAGES:
        values = [o.timings_ms[stage] for o in outcomes]
        generated = [o.timings_ms[stage] for o in outcomes if o.timings_ms["generate"] > 0]
        extra = (
            f" (p50 {median(generated):.1f} ms over {len(generated)} that generated)"
            if (stage in ("generate", "total") and generated)
            else ""
        )
        print(f"| p50 {stage} ms | {median(values):.1f}{extra} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", nargs="+", default=["extractive", "local"])
    parser.add_argument("--n", type=int, default=200, help="extractive sample (half answerable)")
    parser.add_argument("--local-n", type=int, default=60, help="local sample (first of --n)")
    parser.add_argument("--budget-s", type=float, default=1800.0, help="wall clock per provider")
    parser.add_argument("--threads", type=int, default=2, help="local generation threads")
    parser.add_argument(
        "--local-timeout-s",
        type=float,
        default=None,
        help="generation.local_timeout_s for the run (default: the configured 300 s)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    data, questions = load_questions()
    engine = open_engine(data, args.out.resolve(), args.threads, args.local_timeout_s)
    ask = engine.settings.ask
    picked = sample(questions, args.n, args.seed)
    print("# ask_squad")
    print(f"machine: {machine()}")
    print(
        f"{len(questions)} questions, {sum(q.answerable for q in questions)} answerable; "
        f"sample seed {args.seed}; vector_threshold {ask.vector_threshold}, final_threshold "
        f"{ask.final_threshold}, folder_ranking {ask.folder_ranking}; "
        f"generation threads {args.threads}, local_timeout_s "
        f"{engine.settings.generation.local_timeout_s:.0f}",
        flush=True,
    )
    for provider in args.providers:
        chosen = picked if provider == "extractive" else picked[: args.local_n]
        load_s = warm_up(engine, provider)
        print(f"{provider}: warm-up (model load) {load_s:.1f} s", flush=True)
        log = args.out / f"{provider}.jsonl"
        outcomes, wall_s = run(engine, provider, chosen, args.budget_s, log)
        report(provider, outcomes, len(chosen), wall_s)
        print(f"per-question log: {log}", flush=True)
    engine.close()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
