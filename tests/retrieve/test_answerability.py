"""The calibrated answerability gate: features, the logistic model, and the gate at ask."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from notecite import Engine, load_settings
from notecite.retrieve.answerability import DEFAULT_MODEL, FEATURE_NAMES, Features
from notecite.schemas.ask import AskRequest
from notecite.testing import ScriptedLLM
from tests.ask.notes import build_vaults


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
