"""The calibrated answerability gate: features, the logistic model, and the gate at ask."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from notecite import Engine, load_settings
from notecite.generate.reading import NOT_ANSWERED
from notecite.retrieve.answerability import DEFAULT_MODEL, FEATURE_NAMES, Features, features
from notecite.retrieve.retriever import Candidate
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.testing import ScriptedLLM, write_files
from tests.ask.notes import build_vaults
from tests.helpers import stored_chunk


def test_the_model_reads_every_feature_in_order() -> None:
    assert len(DEFAULT_MODEL.weights) == len(FEATURE_NAMES) == len(DEFAULT_MODEL.mean)
    strong = Features(0.8, 0.3, 0.8, 1.0, 1.0, 0.0, 0.0)
    weak = Features(0.3, 0.0, 0.3, 0.0, 0.2, 0.6, 1.0)
    assert DEFAULT_MODEL.probability(strong) > DEFAULT_MODEL.threshold
    assert DEFAULT_MODEL.probability(weak) < DEFAULT_MODEL.threshold
    # terms the notes never hold lower the odds, whatever else is equal
    absent = Features(0.8, 0.3, 0.8, 1.0, 1.0, 0.5, 0.0)
    assert DEFAULT_MODEL.probability(absent) < DEFAULT_MODEL.probability(strong)


@pytest.fixture(scope="module")
def minilm_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """The bundled MiniLM (the embedder the gate was fitted on) over the ask test vaults."""
    root = tmp_path_factory.mktemp("gate")
    settings = load_settings(
        home=root / "home", llm="extractive", ask={"auto_rag": "off", "folder_ranking": False}
    )
    engine = Engine(settings, llm=ScriptedLLM("It is on March 14 [N1]."))
    build_vaults(engine, Path(root))
    return engine


@pytest.mark.slow
def test_an_off_topic_question_abstains_before_any_model_call(minilm_engine: Engine) -> None:
    llm = minilm_engine.llm()
    assert isinstance(llm, ScriptedLLM)
    before = len(llm.calls)
    response = minilm_engine.ask(
        AskRequest(question="How long should I boil an egg for a soft yolk?", debug=True)
    )
    assert (response.abstained, response.abstain_reason) == (True, "no_relevant_context")
    assert response.debug is not None
    gate = response.debug.answerability  # None: nothing passed the thresholds to begin with
    assert gate is None or gate < DEFAULT_MODEL.threshold
    assert len(llm.calls) == before


@pytest.mark.slow
def test_an_answerable_question_passes_the_gate(minilm_engine: Engine) -> None:
    response = minilm_engine.ask(AskRequest(question="When is the Apollo launch?", debug=True))
    assert not response.abstained
    assert response.debug is not None
    assert response.debug.answerability is not None
    assert response.debug.answerability >= DEFAULT_MODEL.threshold


@pytest.mark.slow
@pytest.mark.parametrize("gate", [True, False])
def test_below_the_threshold_the_kept_chunks_go_unless_the_gate_is_off(
    tmp_path: Path, gate: bool
) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        llm="extractive",
        ask={
            "auto_rag": "off",
            "folder_ranking": False,
            "answerability_gate": gate,
            "answerability_threshold": 1.0,
        },
    )
    with Engine(settings) as engine:
        build_vaults(engine, tmp_path)
        response = engine.ask(AskRequest(question="When is the Apollo launch?", debug=True))
    assert response.debug is not None
    assert response.debug.answerability is not None
    assert response.abstained is gate
    assert any("answerability" in note for note in response.debug.notes) is gate


@pytest.mark.slow
def test_the_gate_can_be_switched_off(tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        llm="extractive",
        ask={"auto_rag": "off", "folder_ranking": False, "answerability_gate": False},
    )
    with Engine(settings) as engine:
        build_vaults(engine, tmp_path)
        response = engine.ask(
            AskRequest(question="How long should I boil an egg for a soft yolk?", debug=True)
        )
        assert response.debug is not None
        assert not any("answerability" in note for note in response.debug.notes)


DOUBTED = {
    "auto_rag": "off",
    "folder_ranking": False,
    "answerability_threshold": 1.0,  # every question is under the gate's threshold
    "answerability_read_threshold": 0.0,  # and every one at or over the read threshold
}


@pytest.fixture(scope="module")
def doubted_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose vaults are indexed with MiniLM, for engines that doubt every context."""
    root = tmp_path_factory.mktemp("doubted")
    with Engine(load_settings(home=root / "home", llm="extractive", ask=DOUBTED)) as engine:
        build_vaults(engine, root)
    return root / "home"


def _doubting(home: Path, llm: ScriptedLLM, **ask: object) -> Engine:
    return Engine(load_settings(home=home, llm="extractive", ask={**DOUBTED, **ask}), llm=llm)


@pytest.mark.slow
def test_a_doubted_context_is_read_by_the_model_before_it_writes(doubted_home: Path) -> None:
    """Under the gate's threshold and at or over the read threshold, a model that weighs
    yes/no decides: it is asked whether the context answers, and writes nothing on a no."""
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.2)
    with _doubting(doubted_home, llm) as engine:
        response = engine.ask(AskRequest(question="When is the Apollo launch?", debug=True))
    assert (response.abstained, response.abstain_reason) == (True, "insufficient_information")
    assert response.answer == NOT_ANSWERED
    assert response.references  # the notes it read, to look at
    assert llm.answer_calls == []  # no answer was written
    assert len(llm.yes_calls) == 1
    assert response.debug is not None
    assert response.debug.reading == 0.2
    assert any("asked whether the kept chunks answer" in n for n in response.debug.notes)


@pytest.mark.slow
def test_a_doubted_context_needs_more_of_the_model_than_one_the_gate_let_through(
    doubted_home: Path,
) -> None:
    """The gate's doubt is evidence too: a P(yes) that would keep a written answer (over
    ``reading_threshold``) does not make one over a doubted context
    (``doubted_reading_threshold``)."""
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.6)
    ask = {"reading_threshold": 0.57, "doubted_reading_threshold": 0.62}
    with _doubting(doubted_home, llm, **ask) as engine:
        response = engine.ask(AskRequest(question="When is the Apollo launch?", debug=True))
    assert response.answer == NOT_ANSWERED
    assert llm.answer_calls == []
    assert response.debug is not None
    assert any("P(yes) 0.60 under 0.62" in note for note in response.debug.notes)
    trusted = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.6)
    with _doubting(doubted_home, trusted, **ask, answerability_threshold=0.0) as engine:
        response = engine.ask(AskRequest(question="When is the Apollo launch?"))
    assert not response.abstained  # not doubted: read after the answer, against 0.57
    assert len(trusted.yes_calls) == 1


@pytest.mark.slow
def test_a_doubted_context_the_model_finds_the_answer_in_is_answered(doubted_home: Path) -> None:
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.8)
    streamed: list[str] = []
    with _doubting(doubted_home, llm) as engine:
        response = engine.ask(
            AskRequest(question="When is the Apollo launch?", debug=True), streamed.append
        )
    assert not response.abstained
    assert "March 14" in response.answer
    assert "".join(streamed) == "The Apollo launch is on March 14 [N1]."
    (read,) = llm.yes_calls  # read once, before the answer: not asked again after it
    (answer_call,) = llm.answer_calls
    assert read[:-1] == answer_call.messages[:-1]  # the answer's own prompt: in the cache
    assert response.debug is not None
    assert response.debug.reading == 0.8


@pytest.mark.slow
@pytest.mark.parametrize("yes", [0.2, 0.9])
def test_a_doubted_yes_or_no_question_is_read_first_too(doubted_home: Path, yes: float) -> None:
    """After an answer, the reading check reads no yes/no question (its right answers would
    be refused too often); a doubted one is refused anyway unless the model is asked."""
    llm = ScriptedLLM("Yes, it is on March 14, at the Lisbon office [N1].", yes=yes)
    with _doubting(doubted_home, llm) as engine:
        response = engine.ask(AskRequest(question="Is the Apollo launch on March 14?"))
    assert response.abstained is (yes < 0.62)
    assert len(llm.yes_calls) == 1
    assert len(llm.answer_calls) == (0 if yes < 0.62 else 1)


@pytest.mark.slow
@pytest.mark.parametrize("ask", [{"reading_check": False}, {"answerability_read_threshold": 1.0}])
def test_a_doubted_context_no_reading_can_decide_is_refused_before_any_model_call(
    doubted_home: Path, ask: dict[str, object]
) -> None:
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.9)
    with _doubting(doubted_home, llm, **ask) as engine:
        response = engine.ask(AskRequest(question="When is the Apollo launch?"))
    assert (response.abstained, response.abstain_reason) == (True, "no_relevant_context")
    assert llm.calls == []
    assert llm.yes_calls == []


@pytest.mark.slow
def test_a_doubted_context_is_refused_for_a_model_that_cannot_weigh_yes_or_no(
    doubted_home: Path,
) -> None:
    settings = load_settings(home=doubted_home, llm="extractive", ask=DOUBTED)
    with Engine(settings) as engine:
        response = engine.ask(AskRequest(question="When is the Apollo launch?"))
    assert (response.abstained, response.abstain_reason) == (True, "no_relevant_context")


@pytest.mark.slow
@pytest.mark.parametrize(("yes", "answered"), [(0.2, False), (0.8, True)])
def test_a_chat_turn_over_a_doubted_context_is_read_first_too(
    doubted_home: Path, yes: float, answered: bool
) -> None:
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=yes)
    with _doubting(doubted_home, llm) as engine:
        reply = engine.chat(ChatRequest(message="When is the Apollo launch?"))
    assert reply.meta.abstained is not answered
    assert ("March 14" in reply.answer) is answered
    assert len(llm.yes_calls) == 1
    assert len(llm.answer_calls) == (1 if answered else 0)


def test_the_fit_puts_the_threshold_in_the_gap_with_the_fewest_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = Path(__file__).parents[2] / "bench"
    monkeypatch.syspath_prepend(str(bench))  # as running the script does: it imports _measure
    spec = importlib.util.spec_from_file_location(
        "fit_answerability", bench / "fit_answerability.py"
    )
    assert spec is not None
    assert spec.loader is not None
    fit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fit)
    # leave-one-out probabilities: unanswerable (0) up to 0.6, answerable (1) from 0.8, and
    # one answerable outlier at 0.3
    p = np.array([0.1, 0.4, 0.6, 0.3, 0.8, 0.9, 0.95, 0.97])
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    assert fit.choose_threshold(p, y, max_wrong=0.25) == pytest.approx(0.7)
    # a bound on wrong abstentions that the gap rule would break moves it down
    assert fit.choose_threshold(p, y, max_wrong=0.0) == pytest.approx(0.2)


SERVER_NOTE = (
    "# Server notes\n\nThe backup server is nas-02 in the basement rack.\n"
    "Login with the admin account; the password is in 1Password.\n\n"
    "We used to back up to a USB disk called Tortoise.\n\nSnapshots run nightly at 02:30.\n"
)


@pytest.mark.slow
def test_a_vault_of_one_note_is_not_refused_for_having_no_fifth_candidate(
    tmp_path: Path,
) -> None:
    """The margin is the best candidate's lead over the fifth: with fewer than five there
    is nothing below it, and a new vault of one note answered nothing (P 0.52 for "Which
    machine is the backup server?")."""
    settings = load_settings(home=tmp_path / "home", llm="extractive", ask={"auto_rag": "off"})
    with Engine(settings) as engine:
        engine.add_vault("me", write_files(tmp_path / "me", {"servers.md": SERVER_NOTE}))
        engine.index()
        asked = engine.ask(AskRequest(question="Which machine is the backup server?", debug=True))
        off = engine.ask(AskRequest(question="How do I bake sourdough bread?", debug=True))
    assert not asked.abstained, asked.debug and asked.debug.answerability
    assert "nas-02" in asked.answer
    assert off.abstained


def test_with_fewer_than_five_candidates_the_margin_is_the_best_score() -> None:
    one = [Candidate.unscored(stored_chunk(1, "a.md"))]
    one[0].gate = 0.6
    found = features("Which machine is the backup server?", one, one, lambda t: set(t), 0)
    assert found.margin == pytest.approx(0.6)
