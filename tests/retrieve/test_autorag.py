"""Auto-RAG: when it runs, what it does without an LLM, and with a real small LLM (SmolLM2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite import Engine, load_settings
from notecite.retrieve.autorag import HYDE_PROMPT, parse_queries, rrf_merge, strength, weakness
from notecite.retrieve.retriever import Candidate
from notecite.schemas.ask import AskRequest, AutoRagDebug, DebugInfo
from notecite.store.base import StoredChunk
from notecite.testing import ScriptedLLM
from tests.ask.conftest import MakeEngine
from tests.ask.notes import build_vaults

APOLLO = "When is the Apollo launch?"


def cand(rowid: int, gate: float = 0.5, final: float = 0.0) -> Candidate:
    chunk = StoredChunk(rowid, f"c{rowid}", "v", "a.md", "", "", "", 0, "text", 1, 1, None, None)
    return Candidate(rowid, chunk, gate, 0.0, 1.0, gate=gate, final=final)


def debug_of(engine: Engine, request: AskRequest) -> DebugInfo:
    debug = engine.ask(request.model_copy(update={"debug": True})).debug
    assert debug is not None
    return debug


# -- decisions, on hand-made candidates -----------------------------------------------------


@pytest.mark.parametrize(
    ("candidates", "kept", "embedded", "expected"),
    [
        ([], [], True, None),  # an empty scope: nothing to search again
        ([], [], False, "no_match"),  # keyword-only search found no word
        ([cand(1)], [], True, "nothing_kept"),
        ([cand(1, 0.35), cand(2, 0.3), cand(3, 0.3)], None, True, "low_score"),
        ([cand(1, 0.6), cand(2, 0.5)], None, True, "few_kept"),
        ([cand(1, 0.6), cand(2, 0.5), cand(3, 0.45)], None, True, None),
    ],
)
def test_weak_retrieval(
    candidates: list[Candidate], kept: list[Candidate] | None, embedded: bool, expected: str | None
) -> None:
    chosen = candidates if kept is None else kept
    assert weakness(candidates, chosen, 0.40, 3, embedded) == expected


def test_strength_is_half_top_score_half_density() -> None:
    assert strength([], 5) == 0.0
    # top 0.6; density (0.6 + 0.4) / 5 = 0.2 -> 0.5 * 0.6 + 0.5 * 0.2
    assert strength([cand(1, 0.4), cand(2, 0.6)], 5) == pytest.approx(0.4)
    # more strong chunks beat one slightly better chunk
    assert strength([cand(1, 0.5)] * 4, 5) > strength([cand(1, 0.55)], 5)


def test_rrf_merge_sums_reciprocal_ranks() -> None:
    merged = rrf_merge([[cand(1), cand(2)], [cand(2), cand(3)]], k=60)
    assert [c.rowid for c in merged] == [2, 1, 3]
    assert merged[0].final == pytest.approx(1 / 62 + 1 / 61)
    assert merged[1].final == pytest.approx(1 / 61)


def test_queries_are_parsed_from_a_chatty_reply() -> None:
    reply = '1. "apollo launch date"\n- Query: apollo launch schedule\n\n2) apollo launch date\n'
    assert parse_queries(reply, 5) == ["apollo launch date", "apollo launch schedule"]
    assert parse_queries(reply, 1) == ["apollo launch date"]


# -- through Engine.ask, with no LLM that can write -----------------------------------------


def test_off_never_runs(make_engine: MakeEngine) -> None:
    debug = debug_of(make_engine(ask={"auto_rag": "off"}), AskRequest(question="xylophone?"))
    assert debug.auto_rag == AutoRagDebug(mode="off")


def test_the_request_overrides_the_config(make_engine: MakeEngine) -> None:
    engine = make_engine(ask={"auto_rag": "always"})
    assert debug_of(engine, AskRequest(question=APOLLO)).auto_rag.triggered
    off = debug_of(engine, AskRequest(question=APOLLO, auto_rag="off")).auto_rag
    assert (off.mode, off.triggered, off.steps) == ("off", False, [])


def test_without_an_llm_the_steps_are_skipped_and_the_second_pass_goes_deeper(
    make_engine: MakeEngine,
) -> None:
    engine = make_engine(
        ask={
            "auto_rag": "auto",
            "hits_per_scope": 1,
            "keyword_depth": 1,
            "folder_ranking": False,
        }
    )
    debug = debug_of(engine, AskRequest(question="Apollo launch weather antenna budget?"))
    auto = debug.auto_rag
    assert auto.triggered
    assert auto.reason == "few_kept"  # one hit per scope (vector + BM25) keeps under 3
    steps = {s.name: s for s in auto.steps}
    assert (steps["hyde"].status, steps["hyde"].detail) == ("skipped", "no LLM")
    assert (steps["rewrite"].status, steps["rewrite"].detail) == ("skipped", "no LLM")
    assert steps["second_pass"].status == "ok"
    assert auto.queries == ["Apollo launch weather antenna budget?"]
    # three hits per scope find more strong chunks: the auto pass wins and is what is kept
    assert auto.winner == "auto"
    assert auto.auto_strength > auto.base_strength
    assert sum(c.kept for c in debug.retrieved_chunks) >= 3
    assert debug.timings_ms.auto_rag > 0


def test_strong_retrieval_does_not_trigger_auto(make_engine: MakeEngine) -> None:
    engine = make_engine(
        ask={"auto_rag": "auto", "auto_rag_min_score": 0.0, "auto_rag_min_kept": 1}
    )
    auto = debug_of(engine, AskRequest(question=APOLLO)).auto_rag
    assert (auto.mode, auto.triggered, auto.reason) == ("auto", False, "")


def test_an_empty_vault_never_triggers(make_engine: MakeEngine) -> None:
    engine = make_engine(ask={"auto_rag": "always"}, indexed=False)
    response = engine.ask(AskRequest(question=APOLLO, debug=True))
    assert response.abstain_reason == "no_notes"
    assert response.debug is not None
    assert not response.debug.auto_rag.triggered


# -- with a real small LLM (SmolLM2-135M through the local provider) ------------------------


def smollm_engine(tmp_path: Path, **ask: object) -> Engine:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="local",
        generation={
            "model": "smollm2",
            "threads": 2,
            "max_tokens": 32,
            "context_size": 2048,
            "temperature": 0.0,
        },
        ask={"folder_ranking": False, **ask},
    )
    engine = Engine(settings)
    build_vaults(engine, tmp_path / "notes")
    return engine


@pytest.mark.slow
def test_smollm2_writes_the_hypothetical_answer_and_the_rewrites(tmp_path: Path) -> None:
    # a generous step timeout: this test is about what the steps produce, not their speed
    # (on two busy cores a 135M model's rewrite has taken over the default 20 s)
    with smollm_engine(
        tmp_path, auto_rag="always", multi_query_rewrites=2, auto_rag_timeout_s=120
    ) as engine:
        single = debug_of(engine, AskRequest(question=APOLLO)).auto_rag
        multi = debug_of(engine, AskRequest(question=APOLLO, multi_query=True)).auto_rag

    steps = {s.name: s for s in single.steps}
    assert steps["hyde"].status == "ok"
    assert steps["hyde"].ms > 0
    assert steps["rewrite"].status in {"ok", "failed"}  # a 135M model may echo the question
    assert steps["second_pass"].status == "ok"
    assert single.queries[0] == APOLLO
    assert len(single.queries) == 1 + (steps["rewrite"].status == "ok")
    assert single.winner in {"base", "auto"}
    multi_steps = {s.name: s for s in multi.steps}
    assert set(multi_steps) == {"hyde", "multi_query", "second_pass"}
    if multi_steps["multi_query"].status == "ok":
        assert 2 <= len(multi.queries) <= 3
        assert all(q != APOLLO for q in multi.queries[1:])


@pytest.mark.slow
def test_an_llm_step_past_its_timeout_is_skipped_and_reported(tmp_path: Path) -> None:
    with smollm_engine(tmp_path, auto_rag="always", auto_rag_timeout_s=0.001) as engine:
        response = engine.ask(AskRequest(question=APOLLO, debug=True))
    assert response.debug is not None
    steps = {s.name: s for s in response.debug.auto_rag.steps}
    assert steps["hyde"].status == "timeout"
    assert steps["rewrite"].status == "timeout"
    assert "0.001 s" in steps["hyde"].detail
    assert steps["second_pass"].status == "ok"
    assert response.debug.auto_rag.queries == [APOLLO]
    assert response.references  # the answer still came


def test_a_weak_off_topic_question_asks_the_model_nothing(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM("Sourdough needs a starter.")
    engine = make_engine(ask={"auto_rag": "auto", "folder_ranking": "off"}, llm=llm)
    question = "How long should sourdough bread proof overnight?"
    auto = debug_of(engine, AskRequest(question=question)).auto_rag
    assert not auto.triggered
    assert "question terms are in no note" in auto.reason
    assert "sourdough" in auto.reason
    assert auto.steps == []
    assert llm.calls == []  # neither HyDE nor a rewrite: the notes do not speak of it
    # with the check off, the same weak retrieval runs auto-RAG's model steps
    engine = make_engine(
        ask={"auto_rag": "auto", "folder_ranking": "off", "auto_rag_max_absent": 1.0}, llm=llm
    )
    auto = debug_of(engine, AskRequest(question=question)).auto_rag
    assert auto.triggered
    assert {s.name for s in auto.steps} >= {"hyde", "rewrite"}


def test_the_bundled_model_is_not_asked_unless_configured_or_asked_always(
    make_engine: MakeEngine,
) -> None:
    ask = {"auto_rag": "auto", "hits_per_scope": 1, "keyword_depth": 1, "folder_ranking": False}
    question = AskRequest(question="Apollo launch weather antenna budget?")

    def model_steps(llm: ScriptedLLM, request: AskRequest, **more: object) -> dict[str, str]:
        auto = debug_of(make_engine(ask={**ask, **more}, llm=llm), request).auto_rag
        assert auto.triggered
        assert any(s.name == "second_pass" and s.status == "ok" for s in auto.steps)
        return {s.name: s.status for s in auto.steps if s.name != "second_pass"}

    def hyde_asked(llm: ScriptedLLM) -> bool:
        return any(HYDE_PROMPT in m.content for call in llm.calls for m in call.messages)

    local = ScriptedLLM("The launch is at dawn.", name="local")
    assert model_steps(local, question) == {"hyde": "skipped", "rewrite": "skipped"}
    assert not hyde_asked(local)  # the second pass only searched deeper
    asked = ScriptedLLM("The launch is at dawn.", name="local")
    assert model_steps(asked, question, auto_rag_local=True)["hyde"] == "ok"
    assert hyde_asked(asked)
    always = ScriptedLLM("The launch is at dawn.", name="local")
    request = question.model_copy(update={"auto_rag": "always"})
    assert model_steps(always, request)["hyde"] == "ok"
    # a remote model writes a step in a second or two: it is asked
    remote = ScriptedLLM("The launch is at dawn.", name="openai")
    assert model_steps(remote, question)["hyde"] == "ok"
