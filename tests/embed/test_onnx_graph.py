"""Removing the NaN guards after attention softmaxes: the graph shrinks, the outputs do not
change, and any graph that does not have exactly that shape is left alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from notecite.embed.minilm import bundled_model_files
from notecite.embed.onnx_graph import without_nan_guards


def _attention_like(extra_isnan_reader: bool = False, guard_is_output: bool = False) -> bytes:
    """scores -> Softmax -> Where(IsNaN(p), 0, p) -> MatMul with v, twice in a row."""
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    nodes: list[Any] = []
    current = "scores"
    outputs = []
    for layer in range(2):
        p, nan, guarded, out = (f"{n}{layer}" for n in ("p", "nan", "guarded", "out"))
        nodes += [
            helper.make_node("Softmax", [current], [p], axis=-1),
            helper.make_node("IsNaN", [p], [nan]),
            helper.make_node("Where", [nan, "zero", p], [guarded]),
            helper.make_node("MatMul", [guarded, "v"], [out]),
        ]
        current = out
    outputs.append(helper.make_tensor_value_info(current, TensorProto.FLOAT, [2, 4, 4]))
    if extra_isnan_reader:
        nodes.append(helper.make_node("Cast", ["nan0"], ["nan_count"], to=TensorProto.FLOAT))
        outputs.append(helper.make_tensor_value_info("nan_count", TensorProto.FLOAT, [2, 4, 4]))
    if guard_is_output:
        outputs.append(helper.make_tensor_value_info("guarded1", TensorProto.FLOAT, [2, 4, 4]))
    graph = helper.make_graph(
        nodes,
        "attention",
        [
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 4, 4]),
            helper.make_tensor_value_info("v", TensorProto.FLOAT, [2, 4, 4]),
        ],
        outputs,
        initializer=[zero],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return bytes(model.SerializeToString())


def _run(model: bytes, feeds: dict[str, Any]) -> list[Any]:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return list(session.run(None, feeds))


def _ops(model: bytes) -> list[str]:
    return [n.op_type for n in onnx.load_from_string(model).graph.node]


def test_guards_are_removed_and_the_outputs_stay() -> None:
    model = _attention_like()
    rewritten, removed = without_nan_guards(model)
    assert removed == 2
    assert _ops(rewritten) == ["Softmax", "MatMul", "Softmax", "MatMul"]
    onnx.checker.check_model(onnx.load_from_string(rewritten))
    rng = np.random.default_rng(0)
    feeds = {
        "scores": rng.normal(size=(2, 4, 4)).astype(np.float32),
        "v": rng.normal(size=(2, 4, 4)).astype(np.float32),
    }
    (before,) = _run(model, feeds)
    (after,) = _run(rewritten, feeds)
    np.testing.assert_array_equal(after, before)
    assert without_nan_guards(rewritten) == (rewritten, 0)


@pytest.mark.parametrize(
    "shape", [{"extra_isnan_reader": True}, {"guard_is_output": True}], ids=["isnan", "output"]
)
def test_a_guard_something_else_reads_leaves_the_model_unchanged(shape: dict[str, bool]) -> None:
    model = _attention_like(**shape)
    assert without_nan_guards(model) == (model, 0)


def test_a_model_without_guards_is_returned_as_it_is() -> None:
    graph = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
        "plain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    model = bytes(helper.make_model(graph).SerializeToString())
    assert without_nan_guards(model) == (model, 0)


@pytest.mark.slow
def test_bundled_minilm_gives_the_same_states_without_its_guards() -> None:
    """All six guards of the bundled model go, and a padded batch (short and long rows, so
    that masked keys are present) gives the same last_hidden_state as the original model."""
    original = bundled_model_files()[0].read_bytes()
    rewritten, removed = without_nan_guards(original)
    assert removed == 6
    assert "IsNaN" not in _ops(rewritten)
    rng = np.random.default_rng(1)
    ids = rng.integers(1000, 29000, size=(3, 40)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[1, 12:] = 0
    mask[2, 3:] = 0
    ids[:, 0], ids[mask == 0] = 101, 0
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    (before,) = _run(original, feeds)
    (after,) = _run(rewritten, feeds)
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-5)
