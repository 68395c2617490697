"""TemplateRetriever against every template store: indexing, search, fallback, add, list."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from notecite.embed.hashing import HashEmbedder
from notecite.templates import BUILTIN_CHAIN_OF_THOUGHT, embed_text, parse_template
from notecite.testing import DelegatingEmbedder
from tests.templates.conftest import MakeRetriever
from tests.templates.helpers import template_text, two_dirs, write_template


def test_indexing_two_dirs_embeds_each_once_and_reindexing_never_duplicates(
    tmp_path: Path, make_retriever: MakeRetriever, embedder: DelegatingEmbedder
) -> None:
    dirs = two_dirs(tmp_path / "lib")
    retriever = make_retriever(dirs)
    assert not retriever.is_ready()
    assert retriever.index_templates() == 7
    assert len(embedder.documents) == 7
    assert retriever.is_ready()

    assert retriever.index_templates() == 7
    assert len(embedder.documents) == 7  # nothing changed, nothing embedded again
    assert retriever.store.count() == 7
    ids = [t.id for t in retriever.list_templates()]
    assert ids == sorted(ids)
    assert len(ids) == len(set(ids)) == 7

    # A new retriever on the same store (a restart) finds it ready and embeds nothing.
    again = make_retriever(dirs)
    assert again.is_ready()
    assert again.index_templates() == 7
    assert len(embedder.documents) == 7
    assert again.store.count() == 7


def test_reindex_embeds_only_changed_files_and_drops_deleted_ones(
    tmp_path: Path, make_retriever: MakeRetriever, embedder: DelegatingEmbedder
) -> None:
    first, second = two_dirs(tmp_path / "lib")
    retriever = make_retriever((first, second))
    retriever.index_templates()
    write_template(first, "fermi", template_text("Fermi, revised", "New words", ["guess"]))
    (second / "analogy.md").unlink()
    assert retriever.index_templates() == 6
    assert embedder.documents[7:] == [
        embed_text(parse_template(first / "fermi.md")),
    ]
    stored = {t.id: t for t in retriever.list_templates()}
    assert "analogy" not in stored
    assert stored["fermi"].name == "Fermi, revised"


def test_another_embedding_model_re_embeds_everything(
    tmp_path: Path, make_retriever: MakeRetriever
) -> None:
    dirs = two_dirs(tmp_path / "lib")
    outside = write_template(tmp_path / "elsewhere", "extra", template_text("Extra", "x"))
    make_retriever(dirs).index_templates()
    make_retriever(dirs).add_template(outside)
    small = DelegatingEmbedder(HashEmbedder(dimensions=64))
    retriever = make_retriever(dirs, small)
    assert not retriever.is_ready()
    assert retriever.index_templates() == 7
    assert len(small.documents) == 8  # the added template is kept, re-embedded
    assert retriever.store.count("hash-64") == 8
    assert retriever.store.count() == 8
    (top,) = retriever.search(embed_text(parse_template(outside)), top_k=1)
    assert top.id == "extra"


def test_search_default_top_k_3_custom_5_best_first(
    tmp_path: Path, make_retriever: MakeRetriever
) -> None:
    retriever = make_retriever(two_dirs(tmp_path / "lib"), similarity_threshold=-1.0)
    retriever.index_templates()
    query = "how many piano tuners: estimate the order of magnitude"
    default = retriever.search(query)
    assert len(default) == 3
    assert default[0].id == "fermi"
    assert [m.score for m in default] == sorted((m.score for m in default), reverse=True)
    assert len(retriever.search(query, top_k=5)) == 5
    assert len(retriever.search(query, top_k=50)) == 7
    with pytest.raises(ValueError, match="top_k"):
        retriever.search(query, top_k=0)


def test_score_is_cosine_similarity_and_the_threshold_drops_weak_matches(
    tmp_path: Path, make_retriever: MakeRetriever, embedder: DelegatingEmbedder
) -> None:
    first, second = two_dirs(tmp_path / "lib")
    everything = make_retriever((first, second), similarity_threshold=-1.0)
    everything.index_templates()
    query = "an outage happened: ask why to find the root cause of the incident"
    ranked = everything.search(query, top_k=7)
    assert len(ranked) == 7
    assert ranked[0].id == "five-whys"
    assert all(0.0 <= m.score <= 1.0 for m in ranked)
    template = parse_template(first / "five-whys.md")
    expected = float(
        np.dot(embedder.inner.embed_query(query), embedder.inner.embed_query(embed_text(template)))
    )
    assert ranked[0].score == pytest.approx(expected, abs=1e-5)  # 1 - cosine distance
    assert ranked[0].content == template.content
    assert ranked[0].description == template.description

    cut = (ranked[0].score + ranked[1].score) / 2
    strict = make_retriever((first, second), similarity_threshold=cut)
    assert [m.id for m in strict.search(query, top_k=7)] == ["five-whys"]
    at_second = make_retriever((first, second), similarity_threshold=ranked[1].score - 1e-6)
    assert [m.id for m in at_second.search(query, top_k=7)] == [m.id for m in ranked[:2]]


def test_nothing_over_the_threshold_returns_the_library_chain_of_thought(
    tmp_path: Path, make_retriever: MakeRetriever
) -> None:
    first, second = two_dirs(tmp_path / "lib")
    retriever = make_retriever((first, second), similarity_threshold=0.99)
    retriever.index_templates()
    (match,) = retriever.search("an outage happened: ask why to find the root cause")
    assert (match.id, match.score) == ("bot-chain-of-thought", 0.5)
    assert match.name == "Chain of thought (library copy)"
    assert match.content == parse_template(second / "bot-chain-of-thought.md").content


@pytest.mark.parametrize("indexed", [True, False])
def test_an_empty_library_returns_the_built_in_chain_of_thought(
    tmp_path: Path, make_retriever: MakeRetriever, indexed: bool
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    retriever = make_retriever((empty, tmp_path / "missing"))
    if indexed:
        assert retriever.index_templates() == 0
    (match,) = retriever.search("anything at all")
    assert match.id == "bot-chain-of-thought"
    assert match.score == 0.5
    assert match.content == BUILTIN_CHAIN_OF_THOUGHT.content
    assert retriever.search("   ") == [match]


def test_search_never_raises_when_the_embedder_fails(
    tmp_path: Path, make_retriever: MakeRetriever
) -> None:
    dirs = two_dirs(tmp_path / "lib")
    make_retriever(dirs).index_templates()
    down = "the embedding server is down"
    failing = DelegatingEmbedder(HashEmbedder(8), fail_documents=down, fail_queries=down)
    retriever = make_retriever(dirs, failing)
    (match,) = retriever.search("root cause of the outage")
    assert (match.id, match.score) == ("bot-chain-of-thought", 0.5)
    assert match.name == "Chain of thought (library copy)"  # the stored one


def test_add_template_inserts_then_updates_by_id(
    tmp_path: Path, make_retriever: MakeRetriever
) -> None:
    dirs = two_dirs(tmp_path / "lib")
    retriever = make_retriever(dirs, similarity_threshold=-1.0)
    retriever.index_templates()
    path = write_template(
        tmp_path / "mine",
        "socratic",
        template_text("Socratic questions", "Question assumptions", ["assumptions", "evidence"]),
    )
    added = retriever.add_template(path)
    assert added.id == "socratic"
    assert retriever.store.count() == 8
    query = "question the assumptions and the evidence behind a belief"
    assert retriever.search(query)[0].id == "socratic"

    path.write_text(template_text("Socratic, rewritten", "Kites and balloons", ["kites"]))
    updated = retriever.add_template(path)
    assert updated.name == "Socratic, rewritten"
    stored = {t.id: t for t in retriever.list_templates()}
    assert len(stored) == 8
    assert stored["socratic"].name == "Socratic, rewritten"
    assert retriever.search("kites and balloons kites")[0].id == "socratic"
    assert retriever.search(query)[0].id != "socratic"  # the old vector is gone


def test_list_templates_returns_every_field(tmp_path: Path, make_retriever: MakeRetriever) -> None:
    folder = tmp_path / "lib"
    path = write_template(
        folder,
        "full",
        template_text(
            "Full", "All fields", ["a", "b"], "# Full\nBody.", domain="math", complexity="complex"
        ),
    )
    retriever = make_retriever((folder,))
    retriever.index_templates()
    assert retriever.list_templates() == [parse_template(path)]


def test_default_dirs_fall_back_to_the_bundled_library(
    tmp_path: Path, make_retriever: MakeRetriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    retriever = make_retriever(tuple(Path(d) for d in ("data/bot-buffer", "data/templates")))
    assert retriever.index_templates() == 12
    # A data/templates folder in the working directory takes over that default dir.
    write_template(tmp_path / "data" / "templates", "fermi")
    retriever_local = make_retriever(tuple(Path(d) for d in ("data/bot-buffer", "data/templates")))
    assert retriever_local.index_templates() == 4 + 1
    shutil.rmtree(tmp_path / "data")
