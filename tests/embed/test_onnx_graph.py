"""Edits of the embedder's ONNX graph. Removing the NaN guards after attention softmaxes: the
graph shrinks, the outputs do not change, and any graph that does not have exactly that shape
is left alone. Int8 matrix products: a weight-only int8 MatMul becomes one
DynamicQuantizeMatMul on the same int8 weights, and anything else stays as it is."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from notecite.embed.minilm import bundled_model_files
from notecite.embed.onnx_graph import with_int8_matmuls, without_nan_guards


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


def _int8_linear(scale_shape: tuple[int, ...] = (1, 6), cast_read_elsewhere: bool = False) -> bytes:
    """x -> MatMul(x, Cast(W_int8) * scale) -> Relu -> MatMul(., W_float)."""
    rng = np.random.default_rng(3)
    weight = rng.integers(-127, 128, size=(4, 6)).astype(np.int8)
    scale = rng.uniform(0.01, 0.03, size=scale_shape).astype(np.float32)
    initializers = [
        helper.make_tensor("w_q", TensorProto.INT8, [4, 6], weight.flatten().tolist()),
        helper.make_tensor("w_scale", TensorProto.FLOAT, list(scale_shape), scale.flatten()),
        helper.make_tensor(
            "w_float", TensorProto.FLOAT, [6, 3], rng.normal(size=18).astype(np.float32)
        ),
    ]
    nodes = [
        helper.make_node("Cast", ["w_q"], ["w_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["w_f", "w_scale"], ["w"]),
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("MatMul", ["r", "w_float"], ["y"]),
    ]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 3])]
    if cast_read_elsewhere:
        nodes.append(helper.make_node("ReduceSum", ["w_f"], ["w_sum"], keepdims=0))
        outputs.append(helper.make_tensor_value_info("w_sum", TensorProto.FLOAT, []))
    graph = helper.make_graph(
        nodes,
        "linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 4])],
        outputs,
        initializer=initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return bytes(model.SerializeToString())


def test_an_int8_weight_matmul_runs_on_int8_activations() -> None:
    model = _int8_linear()
    rewritten, replaced = with_int8_matmuls(model)
    assert replaced == 1
    assert _ops(rewritten) == ["DynamicQuantizeMatMul", "Relu", "MatMul"]
    loaded = onnx.load_from_string(rewritten)
    assert {o.domain for o in loaded.opset_import} >= {"", "com.microsoft"}
    x = np.random.default_rng(4).normal(size=(5, 4)).astype(np.float32)
    (before,) = _run(model, {"x": x})
    (after,) = _run(rewritten, {"x": x})
    assert not np.array_equal(after, before)  # the activations really were quantized
    np.testing.assert_allclose(after, before, rtol=0.05, atol=0.05)
    assert with_int8_matmuls(rewritten) == (rewritten, 0)


def test_a_per_tensor_scale_is_rewritten_too() -> None:
    assert with_int8_matmuls(_int8_linear(scale_shape=()))[1] == 1


def test_a_cast_that_something_else_reads_is_kept() -> None:
    rewritten, replaced = with_int8_matmuls(_int8_linear(cast_read_elsewhere=True))
    assert replaced == 1
    assert _ops(rewritten) == ["Cast", "DynamicQuantizeMatMul", "Relu", "MatMul", "ReduceSum"]
    x = np.ones((5, 4), dtype=np.float32)
    assert len(_run(rewritten, {"x": x})) == 2


def test_a_scale_that_is_not_per_column_leaves_the_model_unchanged() -> None:
    model = _int8_linear(scale_shape=(4, 1))  # one scale per input row: not a column scale
    assert with_int8_matmuls(model) == (model, 0)


@pytest.mark.slow
def test_bundled_minilm_on_int8_activations_keeps_its_states_close() -> None:
    """All 36 weight products of the bundled model are rewritten; the pooled states of a
    padded batch stay within a cosine of 0.97 of the float products' (0.99 on average over
    Dendron texts, bench/RESULTS.md)."""
    float_model, _ = without_nan_guards(bundled_model_files()[0].read_bytes())
    rewritten, replaced = with_int8_matmuls(float_model)
    assert replaced == 36
    assert "MatMul" in _ops(rewritten)  # attention's own products stay in float
    rng = np.random.default_rng(2)
    ids = rng.integers(1000, 29000, size=(3, 40)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[1, 12:] = 0
    ids[:, 0], ids[mask == 0] = 101, 0
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    (before,) = _run(float_model, feeds)
    (after,) = _run(rewritten, feeds)
    weights = mask[:, :, None]
    pooled = [(h * weights).sum(axis=1) / weights.sum(axis=1) for h in (before, after)]
    cosines = (pooled[0] * pooled[1]).sum(axis=1) / (
        np.linalg.norm(pooled[0], axis=1) * np.linalg.norm(pooled[1], axis=1)
    )
    assert cosines.min() > 0.97
    assert not np.array_equal(before, after)
