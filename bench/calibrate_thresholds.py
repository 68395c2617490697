"""Calibrate the ask pipeline's vector and final thresholds for the bundled embedder (minilm).

The ask pipeline drops candidates whose raw cosine (vector) score is below
``AskSettings.vector_threshold``, then computes final = 0.7 x vector + 0.3 x lexical
(``notecite.retrieve.rerank``) and drops those below ``AskSettings.final_threshold``.

Method: SciFact's 5,183 abstracts are written as markdown notes (``# title`` + text) and
indexed with minilm (cached under ``bench/out/``). On the TRAIN queries only
(``qrels/train.tsv``; the test qrels are never read) each relevant abstract's best chunk is
scored (max vector score, max final score over its chunks), as is the top non-relevant hit
among the pipeline's vector candidates. The thresholds are the ``--keep``-th low percentile
of the relevant distributions, rounded down to 0.01, then lowered further if a right note of
``examples/QUESTIONS.md`` would not pass in the sample vault ``examples/notes/``.

    python bench/calibrate_thresholds.py                # first run indexes SciFact (minutes)
    python bench/calibrate_thresholds.py --keep 97.5    # share of relevant hits to keep
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import re
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _measure import REPO, machine, percentile
from notecite.config import AskSettings, EmbedderSettings, Settings, StoreSettings
from notecite.engine import Engine
from notecite.retrieve.rerank import final_score, lexical_score
from notecite.store.sqlite import SQLiteStore
from notecite.types import SearchFilter

SCIFACT = Path("/work/shared/data/scifact")
OUT = REPO / "bench" / "out" / "calibrate"
EXAMPLES = REPO / "examples"
PCTS = (1.0, 2.0, 2.5, 3.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0)


@dataclass
class Scored:
    """Best vector and best final score over a note's chunks, and whether one passes both."""

    vector: float
    final: float
    per_chunk: list[tuple[float, float]]

    def passes(self, vt: float, ft: float) -> bool:
        return any(v >= vt and f >= ft for v, f in self.per_chunk)


def engine_for(out: Path, vault_dir: Path, name: str, build) -> Engine:  # type: ignore[no-untyped-def]
    """An Engine on ``out/index.db``; the vault is written and indexed once (marker file)."""
    db = out / "index.db"
    marker = out / "index.done"
    settings = Settings(
        home=out, store=StoreSettings(path=db), embedder=EmbedderSettings(name="minilm")
    )
    if not marker.is_file():
        # an interrupted build resumes: the indexer skips notes it already stored
        resume = db.is_file() and vault_dir.is_dir()
        if not resume:
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            build(vault_dir)
        engine = Engine(settings, store=SQLiteStore(db))
        if engine.store.get_vault(name) is None:
            engine.add_vault(name, vault_dir)
        start = time.perf_counter()
        (report,) = engine.index(name)
        print(f"indexed {name}: {report.summary()} in {time.perf_counter() - start:.0f} s")
        marker.write_text(report.summary() + "\n")
        return engine
    return Engine(settings, store=SQLiteStore(db))


def scifact_writer(size: int, relevant: set[str]):  # type: ignore[no-untyped-def]
    """A vault builder: every abstract, or (size > 0) the train-relevant ones plus a seeded
    random sample of the others, ``size`` in all."""

    def write(vault: Path) -> None:
        with (SCIFACT / "corpus.jsonl").open() as handle:
            docs = [json.loads(line) for line in handle]
        if 0 < size < len(docs):
            others = sorted(d["_id"] for d in docs if d["_id"] not in relevant)
            keep = relevant | set(random.Random(0).sample(others, size - len(relevant)))
            docs = [d for d in docs if d["_id"] in keep]
        vault.mkdir(parents=True, exist_ok=True)
        for doc in docs:
            title = " ".join(doc["title"].split()) or doc["_id"]
            (vault / f"{doc['_id']}.md").write_text(f"# {title}\n\n{doc['text']}\n")

    return write


def copy_examples(vault: Path) -> None:
    shutil.copytree(EXAMPLES / "notes", vault)


def chunks_by_note(engine: Engine) -> dict[str, list[int]]:
    store = engine.store
    assert isinstance(store, SQLiteStore)
    out: dict[str, list[int]] = defaultdict(list)
    rows = store.conn.execute(
        "SELECT c.id, n.rel_path FROM chunks c JOIN notes n ON n.id = c.note_id"
    )
    for rowid, rel_path in rows:
        out[str(rel_path)].append(int(rowid))
    return out


class Scorer:
    """Vector, lexical and final scores of chunks for a question, as the pipeline computes them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.model_id = engine.embedder.model_id
        self.by_note = chunks_by_note(engine)
        rowids = [r for rs in self.by_note.values() for r in rs]
        self.chunks = engine.store.fetch_chunks(rowids)
        self.note_of = {r: note for note, rs in self.by_note.items() for r in rs}

    def score(self, question: str, query, rowids: Sequence[int]) -> dict[int, tuple[float, float]]:  # type: ignore[no-untyped-def]
        vectors = self.engine.store.vector_scores(self.model_id, query, list(rowids))
        out = {}
        for rowid, vector in vectors.items():
            chunk = self.chunks[rowid]
            lexical = lexical_score(question, chunk.text, chunk.heading_path)
            out[rowid] = (vector, final_score(vector, lexical))
        return out

    def note(self, question: str, query, rel_path: str) -> Scored:  # type: ignore[no-untyped-def]
        scores = list(self.score(question, query, self.by_note[rel_path]).values())
        return Scored(max(v for v, _ in scores), max(f for _, f in scores), scores)

    def candidates(self, query, limit: int) -> list[int]:  # type: ignore[no-untyped-def]
        hits = self.engine.store.vector_search(self.model_id, query, SearchFilter(), limit)
        return [h.chunk_rowid for h in hits]


def load_train() -> tuple[dict[str, str], dict[str, set[str]]]:
    queries = {}
    with (SCIFACT / "queries.jsonl").open() as handle:
        for line in handle:
            q = json.loads(line)
            queries[q["_id"]] = q["text"]
    qrels: dict[str, set[str]] = defaultdict(set)
    with (SCIFACT / "qrels" / "train.tsv").open() as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels[row["query-id"]].add(row["corpus-id"])
    return queries, qrels


def floor2(x: float) -> float:
    return math.floor(x * 100 + 1e-9) / 100


def pct_row(name: str, values: Sequence[float]) -> str:
    cells = " | ".join(f"{percentile(values, p):.3f}" for p in PCTS)
    return f"| {name} | {len(values)} | {cells} |"


def parse_questions() -> tuple[list[tuple[str, str]], list[str]]:
    """(question, right note) pairs and the unanswerable questions of examples/QUESTIONS.md."""
    text = (EXAMPLES / "QUESTIONS.md").read_text()
    answerable_part, _, unanswerable_part = text.partition("## Questions the notes do NOT answer")
    pairs = re.findall(r"\*\*(.+?)\*\*[^\n]*\n\s*→ `([^`]+?) >", answerable_part)
    unanswerable = re.findall(r"^\d+\. \*\*(.+?)\*\*", unanswerable_part, flags=re.MULTILINE)
    return [(q, p.strip()) for q, p in pairs], unanswerable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=float, default=97.5, help="%% of relevant hits to keep")
    parser.add_argument("--out", type=Path, default=OUT, help="cache dir (index files)")
    parser.add_argument(
        "--corpus-size",
        type=int,
        default=0,
        help="0 = all 5,183 abstracts; N = the train-relevant ones + random others, N in all",
    )
    args = parser.parse_args()
    ask = AskSettings()
    print("# calibrate_thresholds")
    print(f"machine: {machine()}")
    print(
        f"current defaults: vector_threshold={ask.vector_threshold} "
        f"final_threshold={ask.final_threshold}"
    )

    # -- SciFact train ----------------------------------------------------------------------
    queries, qrels = load_train()
    relevant = {d for docs in qrels.values() for d in docs}
    sci_dir = args.out / ("scifact" if args.corpus_size <= 0 else f"scifact-{args.corpus_size}")
    writer = scifact_writer(args.corpus_size, relevant)
    sci = engine_for(sci_dir, sci_dir / "vault", "scifact", writer)
    scorer = Scorer(sci)
    print(
        f"SciFact: {len(scorer.by_note)} notes, {len(scorer.chunks)} chunks; "
        f"train queries {len(qrels)}, relevant pairs {sum(map(len, qrels.values()))}"
    )
    rel: list[Scored] = []
    rel_in_candidates = 0
    nonrel_vec: list[float] = []
    nonrel_fin: list[float] = []
    start = time.perf_counter()
    for qid, docs in sorted(qrels.items(), key=lambda kv: int(kv[0])):
        question = queries[qid]
        query = sci.embedder.embed_query(question)
        cand = scorer.candidates(query, ask.hits_per_scope)
        cand_scores = scorer.score(question, query, cand)
        relevant_notes = {f"{d}.md" for d in docs}
        for note in sorted(relevant_notes):
            if note not in scorer.by_note:
                continue
            rel.append(scorer.note(question, query, note))
            rel_in_candidates += any(scorer.note_of[r] == note for r in cand)
        other = [cand_scores[r] for r in cand if scorer.note_of[r] not in relevant_notes]
        if other:
            nonrel_vec.append(max(v for v, _ in other))
            nonrel_fin.append(max(f for _, f in other))
    print(
        f"scored in {time.perf_counter() - start:.0f} s; relevant docs within the "
        f"{ask.hits_per_scope} vector candidates: {rel_in_candidates}/{len(rel)}"
    )

    print(f"\n| distribution | n | {' | '.join(f'p{p:g}' for p in PCTS)} |")
    print("|---|---|" + "---|" * len(PCTS))
    print(pct_row("relevant: best chunk vector", [s.vector for s in rel]))
    print(pct_row("relevant: best chunk final", [s.final for s in rel]))
    print(pct_row("top non-relevant: vector", nonrel_vec))
    print(pct_row("top non-relevant: final", nonrel_fin))

    drop = 100.0 - args.keep
    vt_sci = floor2(percentile([s.vector for s in rel], drop))
    ft_sci = floor2(percentile([s.final for s in rel], drop))
    print(f"\nSciFact p{drop:g}: vector_threshold {vt_sci:.2f}, final_threshold {ft_sci:.2f}")

    # -- sample vault -----------------------------------------------------------------------
    ex = engine_for(
        args.out / "examples", args.out / "examples" / "vault", "examples", copy_examples
    )
    ex_scorer = Scorer(ex)
    answerable, unanswerable = parse_questions()
    print(f"\nexamples/notes: {len(answerable)} answerable, {len(unanswerable)} unanswerable")
    right: list[tuple[str, Scored, bool]] = []
    for question, note in answerable:
        query = ex.embedder.embed_query(question)
        in_cand = any(
            ex_scorer.note_of[r] == note for r in ex_scorer.candidates(query, ask.hits_per_scope)
        )
        right.append((question, ex_scorer.note(question, query, note), in_cand))
    vt = min(vt_sci, *(floor2(s.vector) for _, s, _ in right))
    # the final floor must be met by a chunk that also passes the vector threshold
    ft = ft_sci
    for _, s, _ in right:
        best = max((f for v, f in s.per_chunk if v >= vt), default=0.0)
        ft = min(ft, floor2(best))
    print("\n| question | right note | best vector | best final | in candidates | passes |")
    print("|---|---|---|---|---|---|")
    for (question, s, in_cand), (_, note) in zip(right, answerable, strict=True):
        print(
            f"| {question} | {note} | {s.vector:.3f} | {s.final:.3f} | {in_cand} | "
            f"{s.passes(vt, ft)} |"
        )
    print("\n| unanswerable question | top chunk | vector | final | passes |")
    print("|---|---|---|---|---|")
    for question in unanswerable:
        query = ex.embedder.embed_query(question)
        cand = ex_scorer.candidates(query, ask.hits_per_scope)
        scores = ex_scorer.score(question, query, cand)
        top = max(cand, key=lambda r: scores[r][1])
        v, f = scores[top]
        passing = sum(1 for r in cand if scores[r][0] >= vt and scores[r][1] >= ft)
        print(
            f"| {question} | {ex_scorer.note_of[top]} | {v:.3f} | {f:.3f} | "
            f"{v >= vt and f >= ft} ({passing}/{len(cand)} candidates pass) |"
        )

    # -- summary ----------------------------------------------------------------------------
    kept = sum(s.passes(vt, ft) for s in rel) / len(rel)
    nv = sum(1 for v, f in zip(nonrel_vec, nonrel_fin, strict=True) if v >= vt and f >= ft)
    print(
        "\n| vector_threshold | final_threshold | relevant kept (train) | top non-relevant kept |"
    )
    print("|---|---|---|---|")
    grid = sorted({(ask.vector_threshold, ask.final_threshold), (vt_sci, ft_sci), (vt, ft)})
    for a, b in grid:
        k = sum(s.passes(a, b) for s in rel) / len(rel)
        n = sum(1 for v, f in zip(nonrel_vec, nonrel_fin, strict=True) if v >= a and f >= b)
        print(f"| {a:.2f} | {b:.2f} | {100 * k:.1f}% | {100 * n / len(nonrel_vec):.1f}% |")
    print(
        f"\nchosen: vector_threshold = {vt:.2f}, final_threshold = {ft:.2f} "
        f"(keeps {100 * kept:.1f}% of relevant train hits, {100 * nv / len(nonrel_vec):.1f}% "
        "of top non-relevant hits)"
    )
    sci.close()
    ex.close()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
