"""Exact vector search over an in-memory matrix, with filters applied as boolean masks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from notecite.embed.base import Vectors
from notecite.store.rows import SENTENCE_POOL_FACTOR, dense_score
from notecite.types import ChunkHit, SearchFilter


def folder_matches(folder: str, prefixes: Sequence[str]) -> bool:
    """``projects`` matches ``projects`` and ``projects/work``, not ``projects-old``."""
    stripped = [p.rstrip("/") for p in prefixes]
    return any(not p or folder == p or folder.startswith(p + "/") for p in stripped)


# With sentence vectors, a search re-scores the best max(SENTENCE_POOL, SENTENCE_POOL_FACTOR x
# limit) chunks by cosine (the dense score needs their sentences) instead of every sentence of
# the index.
SENTENCE_POOL = 1000


@dataclass
class SentenceVectors:
    """Sentence-window vectors grouped by chunk: chunk row i owns rows ``lo[i]:hi[i]``.

    Kept as float16 (half the memory; cosines move by about 1e-3) and converted for the few
    rows a query scores.
    """

    matrix: npt.NDArray[np.float16]
    lo: npt.NDArray[np.int64]
    hi: npt.NDArray[np.int64]

    @classmethod
    def from_rows(
        cls, chunk_rowids: npt.NDArray[np.int64], blocks: Iterable[Sequence[tuple[int, bytes]]]
    ) -> SentenceVectors | None:
        """From blocks of (chunk rowid, vector bytes) rows in any order; rows of chunks that
        are not in ``chunk_rowids`` (sorted) are dropped. None when no row is left.

        Each block is converted to float16 as it comes, so loading needs about twice the
        float16 matrix in memory, not the rows' bytes on top of it.
        """
        if not len(chunk_rowids):
            return None
        positions: list[npt.NDArray[np.int64]] = []
        parts: list[npt.NDArray[np.float16]] = []
        for block in blocks:
            owners = np.fromiter((r[0] for r in block), dtype=np.int64, count=len(block))
            pos = np.clip(np.searchsorted(chunk_rowids, owners), 0, len(chunk_rowids) - 1)
            keep = chunk_rowids[pos] == owners
            if not keep.any():
                continue
            raw = b"".join(r[1] for r, k in zip(block, keep, strict=True) if k)
            parts.append(
                np.frombuffer(raw, dtype=np.float32).reshape(int(keep.sum()), -1).astype(np.float16)
            )
            positions.append(pos[keep])
        if not parts:
            return None
        pos = np.concatenate(positions)
        order = np.argsort(pos, kind="stable")  # group each chunk's sentences together
        matrix = np.concatenate(parts)[order]
        pos = pos[order]
        lo = np.searchsorted(pos, np.arange(len(chunk_rowids)), side="left").astype(np.int64)
        hi = np.searchsorted(pos, np.arange(len(chunk_rowids)), side="right").astype(np.int64)
        return cls(matrix=matrix, lo=lo, hi=hi)

    def best(self, query: Vectors, cosines: Vectors, rows: npt.NDArray[np.int64]) -> Vectors:
        """Best sentence cosine of each chunk row in ``rows`` (``cosines`` are theirs, and
        stand in for chunks without sentence vectors)."""
        best = np.array(cosines, dtype=np.float32, copy=True)
        lo, hi = self.lo[rows], self.hi[rows]
        has = np.flatnonzero(hi > lo)
        if not len(has):
            return best
        counts = hi[has] - lo[has]
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        index = np.repeat(lo[has] - starts, counts) + np.arange(int(counts.sum()))
        scores = self.matrix[index].astype(np.float32) @ query
        best[has] = np.maximum.reduceat(scores, starts)
        return best


@dataclass
class VectorMatrix:
    """All chunk vectors of one model, row-aligned with their chunk rowids and filter keys."""

    rowids: npt.NDArray[np.int64]
    matrix: Vectors
    vault_ids: npt.NDArray[np.int64]
    folder_codes: npt.NDArray[np.int32]
    folders: list[str]
    note_ts: npt.NDArray[np.float64]
    sentences: SentenceVectors | None = None

    def dense(
        self, query: Vectors, cosines: Vectors, rows: npt.NDArray[np.int64], weight: float
    ) -> Vectors:
        """(1 - weight) x chunk cosine + weight x best sentence cosine, for ``rows``."""
        if weight <= 0 or self.sentences is None:
            return cosines
        best = self.sentences.best(query, cosines, rows)
        return np.asarray(dense_score(cosines, best, weight), dtype=np.float32)

    @classmethod
    def empty(cls, dimensions: int) -> VectorMatrix:
        return cls(
            rowids=np.zeros(0, dtype=np.int64),
            matrix=np.zeros((0, dimensions), dtype=np.float32),
            vault_ids=np.zeros(0, dtype=np.int64),
            folder_codes=np.zeros(0, dtype=np.int32),
            folders=[],
            note_ts=np.zeros(0, dtype=np.float64),
        )

    @classmethod
    def from_rows(
        cls, blocks: Iterable[Sequence[tuple[Any, ...]]], capacity: int
    ) -> VectorMatrix | None:
        """A matrix from blocks of (rowid, vault id, folder, note_ts, vector bytes, dimensions)
        rows, or None when there are none.

        Vectors are copied block by block into one array of ``capacity`` rows (grown if more
        come, trimmed if fewer), so loading needs about the matrix's size in memory rather
        than twice that for all rows' bytes and their concatenation.
        """
        vectors: Vectors | None = None
        rowids: list[int] = []
        vault_ids: list[int] = []
        codes: list[int] = []
        note_ts: list[float] = []
        folders: dict[str, int] = {}
        for block in blocks:
            ids, vaults, folder_names, dates, blobs, sizes = zip(*block, strict=True)
            dims = int(sizes[0])
            start, end = len(rowids), len(rowids) + len(block)
            if vectors is None or end > len(vectors):
                grown = np.empty((max(end, capacity, 2 * start), dims), dtype=np.float32)
                if vectors is not None:
                    grown[:start] = vectors[:start]
                vectors = grown
            vectors[start:end] = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(
                len(block), dims
            )
            rowids.extend(ids)
            vault_ids.extend(vaults)
            codes.extend([folders.setdefault(f, len(folders)) for f in folder_names])
            note_ts.extend([np.nan if t is None else t for t in dates])
        if vectors is None:
            return None
        if len(rowids) < len(vectors):
            vectors = vectors[: len(rowids)].copy()
        vectors.flags.writeable = False
        return cls(
            rowids=np.asarray(rowids, dtype=np.int64),
            matrix=vectors,
            vault_ids=np.asarray(vault_ids, dtype=np.int64),
            folder_codes=np.asarray(codes, dtype=np.int32),
            folders=list(folders),
            note_ts=np.asarray(note_ts, dtype=np.float64),
        )

    def __len__(self) -> int:
        return len(self.rowids)

    def without(self, rowids: set[int]) -> VectorMatrix:
        """This matrix less the rows of ``rowids`` (sentence vectors dropped with them)."""
        keep = ~np.isin(self.rowids, np.fromiter(rowids, dtype=np.int64, count=len(rowids)))
        if keep.all():
            return self
        return VectorMatrix.concat([self], keep)

    @classmethod
    def concat(
        cls, parts: Sequence[VectorMatrix], keep: npt.NDArray[np.bool_] | None = None
    ) -> VectorMatrix:
        """The rows of ``parts`` in order (only those ``keep`` marks, over their rows); the
        result is small: this serves the delta of a :class:`LiveMatrix`."""
        folders: dict[str, int] = {}
        codes = []
        for part in parts:
            remap = np.array(
                [folders.setdefault(f, len(folders)) for f in part.folders] or [0], dtype=np.int32
            )
            codes.append(remap[part.folder_codes] if len(part) else part.folder_codes)
        rowids = np.concatenate([p.rowids for p in parts])
        matrix = np.concatenate([p.matrix for p in parts])
        vault_ids = np.concatenate([p.vault_ids for p in parts])
        note_ts = np.concatenate([p.note_ts for p in parts])
        folder_codes = np.concatenate(codes).astype(np.int32)
        sentence_rows: list[tuple[int, npt.NDArray[np.float16]]] = []
        for part in parts:
            if part.sentences is not None:
                for i, rowid in enumerate(part.rowids.tolist()):
                    lo, hi = int(part.sentences.lo[i]), int(part.sentences.hi[i])
                    if hi > lo:
                        sentence_rows.append((rowid, part.sentences.matrix[lo:hi]))
        order = np.argsort(rowids, kind="stable")  # sentence rows are found by search
        if keep is not None:
            order = order[keep[order]]
        rowids, matrix, vault_ids = rowids[order], matrix[order], vault_ids[order]
        note_ts, folder_codes = note_ts[order], folder_codes[order]
        joined = cls(
            rowids=rowids,
            matrix=matrix,
            vault_ids=vault_ids,
            folder_codes=folder_codes,
            folders=list(folders),
            note_ts=note_ts,
        )
        kept = set(rowids.tolist())
        blocks = [
            [(r, v.astype(np.float32).tobytes()) for r, m in sentence_rows if r in kept for v in m]
        ]
        joined.sentences = SentenceVectors.from_rows(rowids, blocks) if sentence_rows else None
        return joined

    def mask(self, flt: SearchFilter) -> npt.NDArray[np.bool_] | None:
        """Rows the filter lets through, or None when it restricts nothing."""
        mask: npt.NDArray[np.bool_] | None = None
        if flt.vault_ids:
            mask = np.isin(self.vault_ids, np.asarray(flt.vault_ids, dtype=np.int64))
        if flt.folders:
            codes = [i for i, f in enumerate(self.folders) if folder_matches(f, flt.folders)]
            folder_mask = np.isin(self.folder_codes, np.asarray(codes, dtype=np.int32))
            mask = folder_mask if mask is None else mask & folder_mask
        if flt.since is not None or flt.until is not None:
            lo = flt.since.timestamp() if flt.since else -np.inf
            hi = flt.until.timestamp() if flt.until else np.inf
            with np.errstate(invalid="ignore"):
                date_mask = (self.note_ts >= lo) & (self.note_ts <= hi)
            mask = date_mask if mask is None else mask & date_mask
        return mask

    def rows_of(self, rowids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Rows whose chunk rowid is in ``rowids`` (any order; the matrix's are ascending)."""
        mask = np.zeros(len(self), dtype=np.bool_)
        if len(rowids) and len(self):
            pos = np.clip(np.searchsorted(self.rowids, rowids), 0, len(self) - 1)
            mask[pos[self.rowids[pos] == rowids]] = True
        return mask

    def search(
        self,
        query: Vectors,
        flt: SearchFilter,
        limit: int,
        sentence_weight: float = 0.0,
        allowed: npt.NDArray[np.bool_] | None = None,
    ) -> list[ChunkHit]:
        """Top ``limit`` rows by dense score (cosine similarity, mixed with the best sentence
        by ``sentence_weight``) among those the filter lets through (and ``allowed``, when
        given: a mask of the rows the frontmatter filter leaves)."""
        if not len(self) or limit <= 0:
            return []
        mask = self.mask(flt)
        if allowed is not None:
            mask = allowed if mask is None else mask & allowed
        if mask is None:
            rows = np.arange(len(self))
            scores = self.matrix @ query
        else:
            rows = np.flatnonzero(mask)
            if not len(rows):
                return []
            # A selective filter scores only its rows; a broad one masks the full product,
            # which is cheaper than copying most of the matrix.
            if len(rows) * 4 < len(self):
                scores = self.matrix[rows] @ query
            else:
                scores = (self.matrix @ query)[rows]
        pool = max(SENTENCE_POOL, SENTENCE_POOL_FACTOR * limit)
        if sentence_weight > 0 and self.sentences is not None and len(scores) > pool:
            kept = np.argpartition(-scores, pool - 1)[:pool]
            rows, scores = rows[kept], scores[kept]
        ranked = self.dense(query, scores, rows, sentence_weight)
        limit = min(limit, len(rows))
        if len(ranked) > limit:
            top = np.argpartition(-ranked, limit - 1)[:limit]
        else:
            top = np.arange(len(ranked))
        top = top[np.argsort(-ranked[top], kind="stable")]
        mixed = ranked is not scores
        return [
            ChunkHit(
                int(self.rowids[rows[i]]), float(scores[i]), float(ranked[i]) if mixed else None
            )
            for i in top
        ]

    def scores_for(
        self, query: Vectors, rowids: Sequence[int], sentence_weight: float = 0.0
    ) -> dict[int, float]:
        """Dense score (cosine, mixed with the best sentence by ``sentence_weight``) of the
        given chunk rowids (those without a vector are absent)."""
        if not len(self) or not rowids:
            return {}
        wanted = np.asarray(rowids, dtype=np.int64)
        order = np.argsort(self.rowids)
        positions = np.searchsorted(self.rowids, wanted, sorter=order)
        positions = np.clip(positions, 0, len(order) - 1)
        found = self.rowids[order[positions]] == wanted
        rows = order[positions[found]]
        scores = self.dense(query, self.matrix[rows] @ query, rows, sentence_weight)
        return {int(r): float(s) for r, s in zip(wanted[found], scores, strict=True)}


@dataclass
class LiveMatrix:
    """The vectors of an index that changes: a loaded ``base``, its rows removed since
    (``dead``, by chunk rowid) and the rows written since (``delta``, small).

    A write costs a search only the changed rows (:meth:`updated`) instead of a reload of
    every vector; the store reloads the whole matrix when the delta grows large.
    """

    base: VectorMatrix
    dead: frozenset[int] = frozenset()
    delta: VectorMatrix | None = None
    _alive: npt.NDArray[np.bool_] | None = None

    @property
    def matrix(self) -> Vectors:
        """The base matrix (benchmarks time NumPy on it)."""
        return self.base.matrix

    @property
    def changed(self) -> int:
        """Rows removed from the base plus rows in the delta."""
        return len(self.dead) + (len(self.delta) if self.delta is not None else 0)

    def __len__(self) -> int:
        return len(self.base) - len(self.dead) + (len(self.delta) if self.delta else 0)

    def updated(self, removed: set[int], added: VectorMatrix | None) -> LiveMatrix:
        """This matrix with the chunk rowids ``removed`` gone and ``added`` in (a rowid may
        be in both: its row is replaced)."""
        replaced = removed | (set(added.rowids.tolist()) if added is not None else set())
        wanted = np.fromiter(replaced, dtype=np.int64, count=len(replaced))
        base_ids = self.base.rowids  # sorted: loaded in rowid order
        pos = np.clip(np.searchsorted(base_ids, wanted), 0, max(len(base_ids) - 1, 0))
        in_base = wanted[base_ids[pos] == wanted] if len(base_ids) else wanted[:0]
        dead = self.dead | frozenset(in_base.tolist())
        parts = [self.delta.without(replaced)] if self.delta is not None else []
        if added is not None:
            parts.append(added)
        parts = [p for p in parts if len(p)]
        delta = VectorMatrix.concat(parts) if parts else None
        alive = None
        if dead:
            gone = np.fromiter(dead, dtype=np.int64, count=len(dead))
            alive = ~np.isin(base_ids, gone)
        return LiveMatrix(self.base, dead, delta, alive)

    def search(
        self,
        query: Vectors,
        flt: SearchFilter,
        limit: int,
        sentence_weight: float = 0.0,
        allowed: npt.NDArray[np.bool_] | None = None,
        delta_allowed: npt.NDArray[np.bool_] | None = None,
    ) -> list[ChunkHit]:
        """As :meth:`VectorMatrix.search`, over the base's live rows and the delta
        (``allowed`` / ``delta_allowed``: masks over the base's and the delta's rows)."""
        mask = self._alive
        if allowed is not None:
            mask = allowed if mask is None else mask & allowed
        hits = self.base.search(query, flt, limit, sentence_weight, mask)
        if self.delta is None or not len(self.delta):
            return hits
        hits = hits + self.delta.search(query, flt, limit, sentence_weight, delta_allowed)
        hits.sort(key=lambda h: -(h.dense if h.dense is not None else h.score))
        return hits[:limit]

    def scores_for(
        self, query: Vectors, rowids: Sequence[int], sentence_weight: float = 0.0
    ) -> dict[int, float]:
        """As :meth:`VectorMatrix.scores_for`, the delta's rows winning over the base's."""
        scores = {
            r: s
            for r, s in self.base.scores_for(query, rowids, sentence_weight).items()
            if r not in self.dead
        }
        if self.delta is not None and len(self.delta):
            scores.update(self.delta.scores_for(query, rowids, sentence_weight))
        return scores
