"""Sentence vectors by late chunking vs a second MiniLM pass, on a BEIR SciFact subset.

Today the indexer embeds every sentence window of a chunk a second time, as its own text
("title > heading\\nwindow"). Late chunking instead pools the chunk's own token states over
each window's span in the one forward pass that embeds the chunk. This study measures both
on the same chunks: the time each takes, and retrieval quality of the dense signal the store
ranks by, (1 - w) x chunk cosine + w x best sentence cosine (w = retrieval.sentence_weight,
0.5), a document scoring its best chunk.

Corpus: the documents judged in the train and test qrels plus --distractors random others
(seed 0), chunked as the indexer chunks them. Choices are made on --split train; the test
split is read once, with the choice fixed (--split test). Vectors are cached in
bench/out/late/ so the second split costs only the queries.

    .venv/bin/python bench/late_chunking_study.py --split train
    .venv/bin/python bench/late_chunking_study.py --split test
"""

from __future__ import annotations

import argparse
import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from notecite.chunking import ChunkerConfig, chunk_note
from notecite.chunking.sentences import sentence_windows, window_spans
from notecite.embed.minilm import MiniLMEmbedder
from notecite.evaluate.beir_data import load_beir
from notecite.evaluate.metrics import evaluate_run
from notecite.ingest.parse import parse_file

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "scifact"
CACHE = REPO / "bench" / "out" / "late"


def corpus_ids(distractors: int) -> list[str]:
    train, test = load_beir(DATA, "train"), load_beir(DATA, "test")
    judged = {d for q in (train.qrels, test.qrels) for docs in q.values() for d in docs}
    others = sorted(set(train.corpus) - judged)
    random.Random(0).shuffle(others)
    return sorted(judged & set(train.corpus)) + others[:distractors]


def build(distractors: int) -> dict[str, np.ndarray]:
    """Chunk the subset, embed chunks + sentence windows both ways; cached."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"vectors-{distractors}.npz"
    if path.exists():
        return dict(np.load(path))
    data = load_beir(DATA, "train")
    embedder = MiniLMEmbedder()
    config = ChunkerConfig(max_tokens=256, overlap_tokens=32, sentence_vectors=True)
    mtime = datetime(2024, 1, 1, tzinfo=UTC)
    owners, texts, sent_owner, sent_texts, spans = [], [], [], [], []
    for doc_id in corpus_ids(distractors):
        title, body = data.corpus[doc_id]
        note = parse_file(
            f"{doc_id}.md", f"---\ntitle: {json.dumps(title)}\n---\n{body}\n".encode(), mtime
        )
        for chunk in chunk_note(note, "scifact", embedder.count_tokens, config):
            row = len(texts)
            owners.append(doc_id)
            texts.append(chunk.embed_text)
            offset = len(chunk.embed_text) - len(chunk.text)
            windows = sentence_windows(chunk.text) if chunk.sentence_texts else []
            spans.append([(a + offset, b + offset) for a, b in window_spans(chunk.text, windows)])
            for sentence in chunk.sentence_texts:
                sent_owner.append(row)
                sent_texts.append(sentence)
    print(f"{len(set(owners))} documents, {len(texts)} chunks, {len(sent_texts)} windows")
    t = time.perf_counter()
    chunk_vecs = embedder.embed_documents(texts)
    t_chunks = time.perf_counter() - t
    t = time.perf_counter()
    second = embedder.embed_documents(sent_texts)
    t_second = time.perf_counter() - t
    t = time.perf_counter()
    late_chunks, late_parts = embedder.embed_with_spans(texts, spans)
    t_late = time.perf_counter() - t
    late = np.concatenate([p for p in late_parts if len(p)]) if sent_texts else second
    late_owner = np.array([i for i, p in enumerate(late_parts) for _ in range(len(p))])
    assert (late_owner == np.array(sent_owner)).all()
    times = np.array([t_chunks, t_second, t_late])
    print(f"chunks {t_chunks:.0f} s, second pass {t_second:.0f} s, late {t_late:.0f} s")
    out = {
        "owners": np.array(owners), "chunks": chunk_vecs, "late_chunks": late_chunks,
        "second": second, "late": late, "sent_owner": np.array(sent_owner), "times": times,
    }  # fmt: skip
    np.savez(path, **out)
    return out


def run_for(
    vectors: dict[str, np.ndarray],
    sentences: np.ndarray | None,
    chunks: np.ndarray,
    queries: np.ndarray,
    ids: list[str],
    weight: float,
) -> dict[str, dict[str, float]]:
    owners = vectors["owners"]
    sent_owner = vectors["sent_owner"]
    cos = queries @ chunks.T  # (q, chunks)
    dense = cos
    if sentences is not None and weight > 0:
        s = queries @ sentences.T
        best = cos.copy()
        order = np.argsort(sent_owner, kind="stable")
        so, s = sent_owner[order], s[:, order]
        starts = np.flatnonzero(np.r_[True, so[1:] != so[:-1]])
        maxes = np.maximum.reduceat(s, starts, axis=1)
        best[:, so[starts]] = maxes
        dense = (1 - weight) * cos + weight * best
    run: dict[str, dict[str, float]] = {}
    for qi, qid in enumerate(ids):
        scores: dict[str, float] = {}
        for ci in np.argsort(-dense[qi])[:300]:
            doc = str(owners[ci])
            scores[doc] = max(scores.get(doc, -1.0), float(dense[qi, ci]))
        run[qid] = dict(sorted(scores.items(), key=lambda kv: -kv[1])[:100])
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="train", choices=["train", "test"])
    parser.add_argument("--distractors", type=int, default=400)
    parser.add_argument("--weight", type=float, action="append")
    args = parser.parse_args()
    vectors = build(args.distractors)
    data = load_beir(DATA, args.split)
    present = set(vectors["owners"].tolist())
    qrels = {q: d for q, d in data.qrels.items() if set(d) <= present}
    ids = sorted(qrels)
    embedder = MiniLMEmbedder()
    queries = np.stack([embedder.embed_query(data.queries[q]) for q in ids])
    t_chunks, t_second, t_late = vectors["times"]
    print(f"{args.split}: {len(ids)} queries; index time: old (chunks + second pass) "
          f"{t_chunks + t_second:.0f} s, late {t_late:.0f} s")  # fmt: skip
    print("| variant | nDCG@10 | R@100 |\n| --- | --- | --- |")
    rows = [("chunk cosine only", None, vectors["chunks"], 0.0)]
    for w in args.weight or [0.5]:
        rows.append((f"second pass, w = {w}", vectors["second"], vectors["chunks"], w))
        rows.append((f"late chunking, w = {w}", vectors["late"], vectors["late_chunks"], w))
    for label, sentences, chunks, w in rows:
        metrics = evaluate_run(qrels, run_for(vectors, sentences, chunks, queries, ids, w))
        print(f"| {label} | {metrics['ndcg@10']:.4f} | {metrics['recall@100']:.4f} |")


if __name__ == "__main__":
    main()
