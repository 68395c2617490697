"""Weights by any frontmatter key ([retrieval.weights.<key>]), with type as one case."""

from __future__ import annotations

import pytest

from notecite.engine import Engine
from notecite.retrieve.field_weights import split_weights
from notecite.testing import EngineFactory

BODY = "The release checklist says to tag the build and write the notes.\n"
NOTES = {
    "a.md": f"---\npersona: Mentor\ntags: [ops]\n---\n# Alpha\n\n{BODY}",
    "b.md": f"---\npersona: critic\ntags: [ops, urgent]\n---\n# Beta\n\n{BODY}",
    "c.md": f"---\ntype: photo\n---\n# Gamma\n\n{BODY}",
}


def order(engine: Engine, vault: str = "notes") -> list[str]:
    found = engine.search("release checklist build notes", vaults=[vault], k=3)
    return [r.rel_path for r in found]


def weights_of(engine: Engine, vault: str = "notes") -> dict[str, float]:
    stage = engine.retrieval_stage([vault])
    return {c.chunk.rel_path: c.type_weight for c in stage.search("release checklist", (), 3)}


def test_weights_by_any_key_multiply_and_type_is_one_of_them(
    notecite_engines: EngineFactory, store_options: dict[str, str]
) -> None:
    weights = {
        "persona": {"mentor": 2.0, "Critic": 0.5},
        "tags": {"urgent": 3.0, "ops": 1.5},
        "type": {"photo": 0.1},
    }
    engine = notecite_engines(
        vaults={"notes": NOTES}, store=store_options, retrieval={"weights": weights}
    )
    # a: mentor 2.0 x ops 1.5; b: critic 0.5 x max(ops, urgent) 3.0; c: photo 0.1
    assert weights_of(engine) == pytest.approx({"a.md": 3.0, "b.md": 1.5, "c.md": 0.1})
    assert order(engine) == ["a.md", "b.md", "c.md"]
    # (one PostgreSQL database serves both engines: the second vault has its own name)
    plain = notecite_engines(vaults={"plain": NOTES}, store=store_options)
    assert weights_of(plain, "plain") == pytest.approx({"a.md": 1.0, "b.md": 1.0, "c.md": 0.3})


def test_type_weights_come_from_both_tables() -> None:
    types, others = split_weights(
        {"Project": 1.15, "photo": 0.3},
        {"TYPE": {"Photo": 0.2, "meeting": 1.3}, "Persona": {"A": 2}},
    )
    assert types == {"project": 1.15, "photo": 0.2, "meeting": 1.3}
    assert others == {"persona": {"a": 2}}
