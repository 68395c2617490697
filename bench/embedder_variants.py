"""MiniLM's two variants on the same texts: float activations against int8 activations.

The texts are what a first index embeds: chunk texts of an index file and the sentence
windows of other chunks (the title and heading path are left out; the mix, not the exact
texts, is what matters for speed), sampled with a fixed seed. Each variant embeds them in
one process, after a warm-up call, ``--repeat`` times, in alternation:

- ``float``: the int8 weights multiplied in float, batches of 32 rows / 2,048 tokens;
- ``int8``: ``DynamicQuantizeMatMul`` on int8 activations, one text per run (as shipped);
- ``int8 batched``: the same graph fed batches of 32, to show why it is not shipped: the
  activations' scale is taken over the whole batch, so a text's vector depends on its
  batch mates.

Reported: wall and CPU seconds per variant (medians), and the cosine of each text's vector
to its float vector (min, 1st percentile, median, mean) and to its own vector alone.

    python bench/embedder_variants.py --db HOME/eval/qa-dendron.db --chunks 300 --windows 300
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from _measure import chunk_texts, machine, median
from notecite.chunking.sentences import sentence_windows
from notecite.embed.minilm import MiniLMEmbedder


def sample_texts(db: Path, chunks: int, windows: int, seed: int) -> list[str]:
    rows = chunk_texts(db, 10**9, seed)
    texts = rows[:chunks]
    for text in rows[chunks:]:
        if len(texts) >= chunks + windows:
            break
        texts += sentence_windows(text)[: chunks + windows - len(texts)]
    return texts


class _BatchedInt8(MiniLMEmbedder):
    """Int8 activations fed whole batches (what the shipped embedder avoids)."""

    @property
    def _rows_per_run(self) -> int:
        return 32


def cosines(a: np.ndarray, b: np.ndarray) -> str:
    c = (a * b).sum(axis=1)  # unit rows
    return (
        f"min {c.min():.4f}, p1 {np.percentile(c, 1):.4f}, median {np.median(c):.5f}, "
        f"mean {c.mean():.5f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="an index file to take texts from")
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--windows", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    texts = sample_texts(args.db, args.chunks, args.windows, args.seed)
    variants = {
        "float": MiniLMEmbedder(int8_activations=False),
        "int8": MiniLMEmbedder(int8_activations=True),
        "int8 batched": _BatchedInt8(int8_activations=True),
    }
    for embedder in variants.values():
        embedder.embed_documents(texts[:4])
    vectors: dict[str, np.ndarray] = {}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    for _ in range(args.repeat):
        for name, embedder in variants.items():
            wall, cpu = time.perf_counter(), time.process_time()
            vectors[name] = embedder.embed_documents(texts)
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    print(f"{len(texts)} texts ({args.chunks} chunks, the rest sentence windows)")
    base = median([w for w, _ in times["float"]])
    for name, runs in times.items():
        wall = median([w for w, _ in runs])
        cpu = median([c for _, c in runs])
        print(f"{name:>13}: wall {wall:.2f} s ({wall / base:.2f}x float), CPU {cpu:.2f} s")
    alone = np.stack([variants["int8"].embed_query(t) for t in texts[:50]])
    print("int8 vs float:", cosines(vectors["int8"], vectors["float"]))
    print("int8 batched vs float:", cosines(vectors["int8 batched"], vectors["float"]))
    print("int8 vs int8 alone (first 50):", cosines(vectors["int8"][:50], alone))
    print("int8 batched vs int8 alone (first 50):", cosines(vectors["int8 batched"][:50], alone))


if __name__ == "__main__":
    main()
