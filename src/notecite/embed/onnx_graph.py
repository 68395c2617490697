"""Drop the NaN guards that a PyTorch export puts after each attention softmax.

``scaled_dot_product_attention`` exported to ONNX wraps every softmax in
``Where(IsNaN(p), 0, p)``, for rows whose keys are all masked out. A BERT-style encoder
never has such a row (the ``[CLS]`` key is always attended to), so the guard is the
identity; onnxruntime still runs it on one thread over the whole ``batch x heads x len x len``
tensor, twice the size of the softmax's own work: about a third of MiniLM's time at 256
tokens, and two extra tensors of that size in memory. This module removes the guards from
the serialized model, editing the protobuf wire format directly (``onnx`` is not a runtime
dependency): the consumers of each ``Where`` read the softmax output instead. Nothing else
changes, so the model computes the same vectors (to float rounding).
"""

from __future__ import annotations

from dataclasses import dataclass

# Field numbers of the ONNX protobuf messages that are read or rewritten.
_MODEL_GRAPH = 7
_GRAPH_NODE = 1
_GRAPH_OUTPUT = 12
_NODE_INPUT = 1
_NODE_OUTPUT = 2
_NODE_OP_TYPE = 4
_VALUE_NAME = 1
_LEN = 2  # wire type of strings, bytes and embedded messages


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


@dataclass(frozen=True)
class _Field:
    number: int
    wire: int
    raw: bytes  # the whole field as it is encoded (tag included)
    payload: bytes  # a LEN field's content; empty for other wire types


def _fields(data: bytes) -> list[_Field]:
    """The top-level fields of one protobuf message, in order."""
    fields: list[_Field] = []
    at = 0
    while at < len(data):
        start = at
        tag, at = _varint(data, at)
        number, wire = tag >> 3, tag & 7
        payload = b""
        if wire == 0:
            _, at = _varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == _LEN:
            size, at = _varint(data, at)
            payload = data[at : at + size]
            at += size
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if at > len(data):
            raise ValueError("truncated protobuf message")
        fields.append(_Field(number, wire, data[start:at], payload))
    return fields


def _len_field(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | _LEN) + _encode_varint(len(payload)) + payload


@dataclass(frozen=True)
class _Node:
    fields: list[_Field]
    inputs: list[str]
    outputs: list[str]
    op_type: str

    @classmethod
    def parse(cls, payload: bytes) -> _Node:
        fields = _fields(payload)

        def strings(number: int) -> list[str]:
            return [f.payload.decode() for f in fields if f.number == number and f.wire == _LEN]

        op_types = strings(_NODE_OP_TYPE)
        return cls(fields, strings(_NODE_INPUT), strings(_NODE_OUTPUT), "".join(op_types))

    def renamed(self, names: dict[str, str]) -> bytes:
        """The node encoded again, with its inputs renamed by ``names``."""
        parts = []
        for field in self.fields:
            name = field.payload.decode() if field.number == _NODE_INPUT else ""
            if field.number == _NODE_INPUT and name in names:
                parts.append(_len_field(_NODE_INPUT, names[name].encode()))
            else:
                parts.append(field.raw)
        return b"".join(parts)


def without_nan_guards(model: bytes) -> tuple[bytes, int]:
    """``model`` with every ``Where(IsNaN(x), c, x)`` replaced by ``x``, and how many were
    removed (0: the model is returned unchanged)."""
    top = _fields(model)
    graph_fields = [f for f in top if f.number == _MODEL_GRAPH and f.wire == _LEN]
    if len(graph_fields) != 1:
        return model, 0
    graph = _fields(graph_fields[0].payload)
    nodes = {i: _Node.parse(f.payload) for i, f in enumerate(graph) if f.number == _GRAPH_NODE}
    isnan = {
        n.outputs[0]: (i, n.inputs[0])
        for i, n in nodes.items()
        if n.op_type == "IsNaN" and len(n.inputs) == 1 and len(n.outputs) == 1
    }
    renames: dict[str, str] = {}
    dropped: set[int] = set()
    for i, node in nodes.items():
        if node.op_type != "Where" or len(node.inputs) != 3 or len(node.outputs) != 1:
            continue
        guard = isnan.get(node.inputs[0])
        if guard is not None and guard[1] == node.inputs[2]:
            renames[node.outputs[0]] = node.inputs[2]
            dropped.update((i, guard[0]))
    # An IsNaN read by anything but its Where must stay, and so must a graph output.
    used = {x for i, n in nodes.items() if i not in dropped for x in n.inputs}
    guards = {nodes[i].outputs[0] for i in dropped if nodes[i].op_type == "IsNaN"}
    outputs = {
        v.payload.decode()
        for f in graph
        if f.number == _GRAPH_OUTPUT and f.wire == _LEN
        for v in _fields(f.payload)
        if v.number == _VALUE_NAME and v.wire == _LEN
    }
    if used & guards or set(renames) & outputs or not renames:
        return model, 0
    parts = []
    for i, field in enumerate(graph):
        if i in dropped:
            continue
        reader = nodes.get(i)
        if reader is not None and set(reader.inputs) & set(renames):
            parts.append(_len_field(_GRAPH_NODE, reader.renamed(renames)))
        else:
            parts.append(field.raw)
    new_graph = _len_field(_MODEL_GRAPH, b"".join(parts))
    rebuilt = b"".join(new_graph if f.number == _MODEL_GRAPH else f.raw for f in top)
    return rebuilt, len(renames)
