"""Model rerankers: a remote /rerank endpoint on 127.0.0.1 (Cohere/Jina and TEI replies), e5."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import pytest

from notecite.config import RetrievalSettings
from notecite.engine import Engine
from notecite.errors import ConfigError, RerankError
from notecite.retrieve.rerankers import (
    Passage,
    RerankerContext,
    available_rerankers,
    create_reranker,
)
from notecite.retrieve.rerankers.cross_encoder import OnnxCrossEncoder, RemoteCrossEncoder
from notecite.retrieve.rerankers.e5 import E5Reranker
from notecite.schemas.ask import AskRequest
from notecite.testing import Fault, ProviderServer, hash_settings
from tests.ask.conftest import MakeEngine

QUESTION = "Why was the Apollo launch review moved?"


def keyword_scores(query: str, documents: Sequence[str]) -> list[float]:
    """What our fake cross-encoder believes: the passages that mention 'moved' matter."""
    return [float(text.count("moved")) for text in documents]


def cross_encoder(style: Literal["cohere", "tei"] = "cohere") -> ProviderServer:
    """A /rerank endpoint on 127.0.0.1 scoring by :func:`keyword_scores`."""
    return ProviderServer(rerank=keyword_scores, rerank_style=style)


def failing() -> ProviderServer:
    server = cross_encoder()
    server.fail("rerank", Fault(400, message="model not loaded"))
    return server


def context(tmp_path: Path, **settings: Any) -> RerankerContext:
    return RerankerContext(RetrievalSettings(**settings), tmp_path / "cache")


def test_the_registry_knows_the_built_in_rerankers(tmp_path: Path) -> None:
    assert {"lexical", "none", "e5", "cross-encoder"} <= set(available_rerankers())
    assert create_reranker("lexical", context(tmp_path)) is None
    assert isinstance(create_reranker("e5", context(tmp_path)), E5Reranker)
    with pytest.raises(ConfigError, match="unknown reranker 'colbert'"):
        create_reranker("colbert", context(tmp_path))
    with pytest.raises(ConfigError, match="cross_encoder_url"):
        create_reranker("cross-encoder", context(tmp_path))
    onnx = create_reranker("cross-encoder", context(tmp_path, cross_encoder_path=tmp_path / "m"))
    assert isinstance(onnx, OnnxCrossEncoder)
    with pytest.raises(RerankError, match="cross-encoder file not found"):
        onnx.score("q", [Passage("p")])


@pytest.mark.parametrize("style", ["cohere", "tei"], ids=["cohere-jina", "tei"])
def test_a_remote_endpoint_scores_passages_in_order(style: Literal["cohere", "tei"]) -> None:
    with cross_encoder(style) as server:
        reranker = RemoteCrossEncoder(f"{server.url}/v1/rerank", model="rr-1", api_key="k")
        scores = reranker.score("q", [Passage("kept"), Passage("moved, moved"), Passage("moved")])
        reranker.close()
    assert scores == [0.0, 2.0, 1.0]
    (request,) = server.received
    assert request.path == "/v1/rerank"
    assert request.headers["Authorization"] == "Bearer k"
    assert request.body["query"] == "q"
    assert request.body["model"] == "rr-1"
    assert request.body["documents"] == request.body["texts"] == ["kept", "moved, moved", "moved"]


def test_a_failing_endpoint_is_a_rerank_error() -> None:
    with failing() as server:
        reranker = RemoteCrossEncoder(f"{server.url}/rerank", retries=0)
        with pytest.raises(RerankError, match="answered 400"):
            reranker.score("q", [Passage("a")])
        reranker.close()


def test_the_ask_pipeline_reorders_by_the_cross_encoder(make_engine: MakeEngine) -> None:
    with cross_encoder() as server:
        engine = make_engine(
            retrieval={
                "reranker": "cross-encoder",
                "cross_encoder_url": f"{server.url}/v1/rerank",
                "model_rerank_depth": 10,
                "model_rerank_weight": 1.0,
            },
            ask={"folder_ranking": False},
        )
        debug = engine.ask(AskRequest(question=QUESTION, debug=True)).debug
    assert debug is not None
    assert debug.reranker == "cross-encoder"
    top = debug.retrieved_chunks[0]
    assert "moved" in top.text  # the only chunk the fake cross-encoder likes
    assert top.score_rerank == 1.0
    assert len(server.received) == 1
    assert len(server.received[0].body["documents"]) == 10


def test_a_reranker_failure_keeps_the_fused_order(make_engine: MakeEngine) -> None:
    plain = make_engine(ask={"folder_ranking": False}).ask(
        AskRequest(question=QUESTION, debug=True)
    )
    with failing() as server:
        engine = make_engine(
            retrieval={"reranker": "cross-encoder", "cross_encoder_url": f"{server.url}/rerank"},
            ask={"folder_ranking": False},
        )
        response = engine.ask(AskRequest(question=QUESTION, debug=True))
    assert response.debug is not None
    assert plain.debug is not None
    assert any("reranker cross-encoder failed" in n for n in response.debug.notes)
    assert [c.chunk_id for c in response.debug.retrieved_chunks] == [
        c.chunk_id for c in plain.debug.retrieved_chunks
    ]
    assert response.references


def test_e5_prefers_the_relevant_passage_and_caches_vectors(tmp_path: Path) -> None:
    passages = [
        Passage("The launch review moved to Thursday because Maria is travelling.", "Standup"),
        Passage("Sourdough needs 75 percent hydration and a long cold proof.", "Bread"),
    ]
    reranker = E5Reranker(tmp_path / "e5.db")
    relevant, unrelated = reranker.score(QUESTION, passages)
    assert relevant > unrelated
    assert reranker.embedded == 2
    reranker.score("another question", passages)  # the passages are cached in memory
    assert reranker.embedded == 2
    reranker.close()

    again = E5Reranker(tmp_path / "e5.db")  # a new process would find them in the file
    assert again.warm(passages) == 0
    assert again.score(QUESTION, passages) == pytest.approx([relevant, unrelated], abs=1e-6)
    again.close()


def write_counting_cross_encoder(folder: Path, word: str) -> Path:
    """A real ONNX cross-encoder whose logit counts ``word`` in the passage segment."""
    import onnx
    from onnx import TensorProto, helper
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, word: 3}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 1), ("[SEP]", 2)],
    )
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))

    dims = ["batch", "length"]
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, dims)
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
    nodes = [
        helper.make_node("Constant", [], ["target"], value=helper.make_tensor("t", 7, [], [3])),
        helper.make_node("Constant", [], ["axes"], value=helper.make_tensor("a", 7, [1], [1])),
        helper.make_node("Equal", ["input_ids", "target"], ["hit"]),
        helper.make_node("Cast", ["hit"], ["hit_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["second_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["hit_f", "mask_f"], ["masked"]),
        helper.make_node("Mul", ["masked", "second_f"], ["in_passage"]),
        helper.make_node("ReduceSum", ["in_passage", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(nodes, "counting-cross-encoder", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = folder / "model.onnx"
    onnx.save(model, str(path))
    return path


def test_an_onnx_cross_encoder_scores_query_passage_pairs(tmp_path: Path) -> None:
    path = write_counting_cross_encoder(tmp_path / "ce", "moved")
    reranker = create_reranker("cross-encoder", context(tmp_path, cross_encoder_path=path))
    assert reranker is not None
    # the question's own "moved" is in the first segment and does not count
    scores = reranker.score(
        "was it moved ?", [Passage("nothing here"), Passage("moved and moved"), Passage("moved")]
    )
    assert scores == [0.0, 2.0, 1.0]


def test_e5_index_vectors_are_computed_while_indexing(
    tmp_path: Path, make_vault: Callable[..., Path]
) -> None:
    """With e5_index_vectors, indexing fills the e5 cache, so the first ask embeds no
    passage; without it, indexing leaves the cache alone."""
    notes = {
        "standup.md": "# Standup\nThe launch review moved to Thursday because Maria travels.\n",
        "bread.md": "# Bread\nSourdough needs 75 percent hydration and a long cold proof.\n",
    }
    vault = make_vault(notes)
    off = hash_settings(tmp_path / "off", retrieval={"reranker": "e5"})
    with Engine(off) as engine:
        engine.add_vault("v", vault)
        engine.index()
        assert not (off.home / "cache" / "e5-passages.db").exists()

    on = hash_settings(tmp_path / "on", retrieval={"reranker": "e5", "e5_index_vectors": True})
    with Engine(on) as engine:
        engine.add_vault("v", vault)
        engine.index()
        reranker = engine.reranker
        assert isinstance(reranker, E5Reranker)
        assert reranker.embedded == 2  # one passage per note, embedded at index time
    with Engine(on) as engine:  # a later process: the passages come from the cache file
        response = engine.ask(AskRequest(question=QUESTION, debug=True))
        reranker = engine.reranker
        assert isinstance(reranker, E5Reranker)
        assert reranker.embedded == 0
        assert response.debug is not None
        assert any(c.score_rerank for c in response.debug.retrieved_chunks)
        engine.index()  # nothing changed: nothing to warm
        assert reranker.embedded == 0
