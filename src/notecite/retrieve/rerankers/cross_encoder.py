"""``cross-encoder``: a user-supplied cross-encoder, as an ONNX file or a remote ``/rerank``.

Remote: ``retrieval.cross_encoder_url`` is the full URL of a rerank endpoint. The request is
the Cohere/Jina body ``{"model", "query", "documents", "top_n"}`` plus TEI's ``texts``; the
reply may be Cohere/Jina's ``{"results": [{"index", "relevance_score"}]}`` or TEI's
``[{"index", "score"}]``.

ONNX: ``retrieval.cross_encoder_path`` is a sequence-classification model (e.g. an
ms-marco MiniLM cross-encoder exported to ONNX) with ``tokenizer.json`` beside it or at
``retrieval.cross_encoder_tokenizer``; the score is the first logit (the last one when the
model has two classes: "relevant" is the positive class).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from notecite.errors import ConfigError, RerankError
from notecite.http import RERANK_ENDPOINT, post_json
from notecite.retrieve.rerankers.base import Passage, RerankerContext

logger = logging.getLogger(__name__)

MAX_TOKENS = 512


class RemoteCrossEncoder:
    """A rerank endpoint speaking the Cohere/Jina or TEI format."""

    name = "cross-encoder"

    def __init__(
        self,
        url: str,
        model: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 10.0,
        retries: int = 1,
    ) -> None:
        self._url = url
        self._model = model
        self._api_key = api_key
        self._timeout = timeout_s
        self._retries = retries
        self._client: httpx.Client | None = None

    def _http(self) -> httpx.Client:
        if self._client is None:
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            self._client = httpx.Client(timeout=self._timeout, headers=headers)
        return self._client

    def score(self, question: str, passages: Sequence[Passage]) -> list[float]:
        if not passages:
            return []
        texts = [p.full_text for p in passages]
        payload: dict[str, Any] = {
            "query": question,
            "documents": texts,
            "texts": texts,
            "top_n": len(texts),
            "return_documents": False,
        }
        if self._model:
            payload["model"] = self._model
        reply = post_json(
            self._http(), self._url, payload, provider=RERANK_ENDPOINT, retries=self._retries
        )
        items = reply.get("results") if isinstance(reply, dict) else reply
        if not isinstance(items, list):
            raise RerankError(f"rerank endpoint {self._url} sent no results list")
        scores = [float("-inf")] * len(texts)
        try:
            for item in items:
                value = item.get("relevance_score", item.get("score"))
                scores[int(item["index"])] = float(value)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise RerankError(f"rerank endpoint {self._url} sent a malformed result") from exc
        low = min((s for s in scores if s != float("-inf")), default=0.0)
        return [s if s != float("-inf") else low - 1.0 for s in scores]

    def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            self._client.close()
            self._client = None


class OnnxCrossEncoder:
    """A cross-encoder ONNX file run with onnxruntime on (question, passage) pairs."""

    name = "cross-encoder"

    def __init__(self, model_path: Path, tokenizer_path: Path | None = None) -> None:
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path or model_path.with_name("tokenizer.json")
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: set[str] = set()
        self._lock = threading.Lock()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            for path in (self._model_path, self._tokenizer_path):
                if not path.is_file():
                    raise RerankError(f"cross-encoder file not found: {path}")
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise RerankError(f"missing dependency ({exc}): pip install onnxruntime") from exc
            try:
                session = ort.InferenceSession(
                    str(self._model_path), providers=["CPUExecutionProvider"]
                )
                tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
            except Exception as exc:
                raise RerankError(f"could not load the cross-encoder: {exc}") from exc
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.no_padding()
            self._inputs = {i.name for i in session.get_inputs()}
            self._tokenizer, self._session = tokenizer, session

    def score(self, question: str, passages: Sequence[Passage]) -> list[float]:
        if not passages:
            return []
        self._load()
        pairs = [(question, p.full_text) for p in passages]
        encodings = self._tokenizer.encode_batch(pairs)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(pairs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = enc.ids, 1, enc.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        try:
            (logits,) = self._session.run(
                None, {k: v for k, v in feeds.items() if k in self._inputs}
            )[:1]
        except Exception as exc:
            raise RerankError(f"cross-encoder inference failed: {exc}") from exc
        logits = np.asarray(logits, dtype=np.float32).reshape(len(pairs), -1)
        return [float(v) for v in logits[:, -1]]


def create(context: RerankerContext) -> RemoteCrossEncoder | OnnxCrossEncoder:
    """The ``cross-encoder`` reranker: the remote endpoint if set, else the ONNX file."""
    settings = context.settings
    if settings.cross_encoder_url:
        key = settings.cross_encoder_api_key
        return RemoteCrossEncoder(
            settings.cross_encoder_url,
            model=settings.cross_encoder_model,
            api_key=key.get_secret_value() if key else None,
            timeout_s=settings.cross_encoder_timeout_s,
        )
    if settings.cross_encoder_path is not None:
        return OnnxCrossEncoder(settings.cross_encoder_path, settings.cross_encoder_tokenizer)
    raise ConfigError(
        "reranker 'cross-encoder' needs retrieval.cross_encoder_url (a /rerank endpoint) "
        "or retrieval.cross_encoder_path (an ONNX file)"
    )
