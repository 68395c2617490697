"""Sentence-level max-sim as the dense signal, on BEIR SciFact.

MiniLM was trained on pairs of at most 128 tokens; a 256-token chunk vector blurs the one
sentence a claim is about. This study embeds every sentence of every chunk of the eval index
(with the note title in front, as the chunk text has it) with the bundled MiniLM, and scores a
chunk's dense signal as a mix of its own cosine and its best sentence's cosine.

Step 1 (`embed`, ~8 min on two cores) splits each chunk of the signal dumps (which
bench/scifact_signals.py reads from the index `notecite eval beir` built under --home) into
sentences (notecite.chunking.sentences) and embeds "title\\nsentence"; vectors are cached
by text in bench/out/maxsim/, so a re-run after the dumps change embeds only new text.

Step 2 (`score`, seconds) reads the signal dumps of bench/scifact_signals.py and scores, on
--split, the eval's weighted hybrid (min-max fusion over the union of the top --depth chunks
by each signal; a document scores its best chunk) with the dense signal replaced by
a x chunk cosine + (1 - a) x best sentence cosine, for a grid of a and of the BM25 weight.

    .venv/bin/python bench/maxsim_study.py embed --home /tmp/evalhome
    .venv/bin/python bench/maxsim_study.py score --split train
    .venv/bin/python bench/maxsim_study.py score --split test --only "<labels chosen on train>"
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from _signals import OUT, Array, FusionScorer, load_dump
from notecite.chunking.sentences import sentence_windows
from notecite.config import load_settings
from notecite.embed.registry import create_embedder

REPO = Path(__file__).resolve().parents[1]
CACHE = OUT / "maxsim"


def sentence_texts(texts: list[str], titles: list[str]) -> tuple[list[str], Array]:
    """Every sentence window of every chunk, with the chunk's position as its owner."""
    out: list[str] = []
    owner: list[int] = []
    for i, (text, title) in enumerate(zip(texts, titles, strict=True)):
        for window in sentence_windows(text):
            out.append(f"{title}\n{window}" if title else window)
            owner.append(i)
    return out, np.array(owner, dtype=np.int64)


def embed(args: argparse.Namespace) -> None:
    dump = load_dump("test")
    texts, owner = sentence_texts(dump["texts"], dump["titles"])
    print(f"{len(texts)} sentence windows for {len(dump['texts'])} chunks")
    cached: dict[str, Array] = {}
    if (CACHE / "sentences.npz").exists():  # vectors of an earlier run, by text
        saved = np.load(CACHE / "sentences.npz")
        cached = dict(zip(saved["texts"].tolist(), saved["vectors"], strict=True))
    todo = sorted({t for t in texts if t not in cached})
    embedder = create_embedder(load_settings(home=args.home).embedder)
    started = time.perf_counter()
    for start in range(0, len(todo), args.batch):
        part = todo[start : start + args.batch]
        cached.update(zip(part, embedder.embed_documents(part), strict=True))
        done = min(start + args.batch, len(todo))
        rate = done / (time.perf_counter() - started)
        print(f"{done}/{len(todo)} ({rate:.0f}/s)", flush=True)
    if todo:
        elapsed = time.perf_counter() - started
        print(f"embedded {len(todo)} windows in {elapsed:.0f} s ({len(todo) / elapsed:.0f}/s)")
    vectors = np.vstack([cached[t] for t in texts]).astype(np.float32)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(
        CACHE / "sentences.npz",
        vectors=vectors,
        owner=owner,
        rowids=dump["rowids"],
        texts=np.array(texts),
    )


class MaxSimStudy(FusionScorer):
    def __init__(self, split: str, depth: int) -> None:
        super().__init__(load_dump(split), depth)
        saved = np.load(CACHE / "sentences.npz")
        if not np.array_equal(saved["rowids"], self.rowids):
            raise SystemExit("the sentence vectors and the signal dump disagree on the chunks")
        sent_cos = self.d["qvecs"] @ saved["vectors"].T
        owner = saved["owner"]
        # Best sentence per chunk; chunks with no sentence window keep their own cosine.
        best = np.full_like(self.cos, -1.0)
        order = np.argsort(owner, kind="stable")
        owner_sorted = owner[order]
        starts = np.flatnonzero(np.r_[True, owner_sorted[1:] != owner_sorted[:-1]])
        best[:, owner_sorted[starts]] = np.maximum.reduceat(sent_cos[:, order], starts, axis=1)
        self.sent = np.where(best < -0.5, self.cos, best).astype(np.float32)

    def variant(
        self, a: float, wv: float, wb: float, cols: str = "t2h1.5b1"
    ) -> tuple[float, float]:
        """Dense = a x chunk cosine + (1 - a) x best sentence cosine, fused with BM25."""
        return self.run([(wv, a * self.cos + (1 - a) * self.sent)], wb, cols)


VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("dense: chunk cosine only", {"a": 1.0, "wv": 1.0, "wb": 0.0}),
    ("dense: best sentence only", {"a": 0.0, "wv": 1.0, "wb": 0.0}),
    *[
        (f"dense: {a} chunk + {1 - a:.2f} sentence", {"a": a, "wv": 1.0, "wb": 0.0})
        for a in (0.3, 0.5, 0.7)
    ],
    ("hybrid 0.6/0.25 (= eval hybrid)", {"a": 1.0, "wv": 0.6, "wb": 0.25}),
    *[
        (f"hybrid 0.6/{wb}, dense {a} chunk + {1 - a:.2f} sentence", {"a": a, "wv": 0.6, "wb": wb})
        for a in (0.0, 0.2, 0.35, 0.5, 0.65, 0.8)
        for wb in (0.2, 0.25, 0.3, 0.4)
    ],
    *[
        (
            f"hybrid 0.6/0.25, dense {a} chunk + {1 - a:.2f} sentence, BM25 columns 1:1:1",
            {"a": a, "wv": 0.6, "wb": 0.25, "cols": "t1h1b1"},
        )
        for a in (0.2, 0.35, 0.5)
    ],
]


def score(args: argparse.Namespace) -> None:
    MaxSimStudy(args.split, args.depth).print_table(VARIANTS, args.split, args.only or ())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="step", required=True)
    first = sub.add_parser("embed", help="embed every sentence window (slow, cached)")
    first.add_argument("--home", type=Path, required=True)
    first.add_argument("--batch", type=int, default=512)
    second = sub.add_parser("score", help="score variants on one split (seconds)")
    second.add_argument("--split", default="train")
    second.add_argument("--depth", type=int, default=300)
    second.add_argument("--only", nargs="*", help="score only these variants (by label)")
    args = parser.parse_args()
    if args.step == "embed":
        embed(args)
    else:
        score(args)


if __name__ == "__main__":
    main()
