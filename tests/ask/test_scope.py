"""Which vaults and folders an ask searches: user choices, LLM folder ranking, or everything."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.errors import VaultError
from notecite.schemas.ask import AskRequest, AskResponse, DebugInfo
from notecite.testing import ScriptedLLM
from tests.ask.conftest import MakeEngine

ALL_FOLDERS = ["v1/meetings", "v1/projects-old", "v1/projects/work", "v2/meetings", "v2/projects"]
LAUNCH = "Apollo launch Lisbon"
STANDUP = "meetings/standup.md"
LLM_RANKING = {"folder_ranking": "llm"}  # the model picks folders (not the default)


def debug_of(response: AskResponse) -> DebugInfo:
    assert response.debug is not None
    return response.debug


def searched(response: AskResponse) -> set[str]:
    """``vault/rel_path`` of every candidate the ask looked at."""
    return {f"{c.vault}/{c.rel_path}" for c in debug_of(response).retrieved_chunks}


def test_every_vault_is_searched_by_default(notes_engine: Engine) -> None:
    response = notes_engine.ask(AskRequest(question="launch espresso tomatoes", debug=True))
    assert {path.split("/")[0] for path in searched(response)} == {"v1", "v2"}
    selection = debug_of(response).folder_selection
    assert selection.available == ALL_FOLDERS
    # ranked without a model: folders in the order of their best candidate, all searched
    assert selection.method == "scores"
    assert selection.selected
    assert set(selection.selected) <= set(ALL_FOLDERS)


def test_vaults_restricts_the_search(notes_engine: Engine) -> None:
    question = "launch espresso tomatoes"
    response = notes_engine.ask(AskRequest(question=question, vaults=["v2"], debug=True))
    assert searched(response)
    assert all(path.startswith("v2/") for path in searched(response))
    assert all(ref.vault == "v2" for ref in response.references)
    assert debug_of(response).folder_selection.available == ["v2/meetings", "v2/projects"]


def test_an_unknown_vault_is_an_error_that_lists_the_vaults(notes_engine: Engine) -> None:
    with pytest.raises(VaultError, match=r"unknown vault 'nope'; known vaults: v1, v2"):
        notes_engine.ask(AskRequest(question=LAUNCH, vaults=["v1", "nope"]))


def test_a_folder_matches_nested_folders_but_not_look_alikes(notes_engine: Engine) -> None:
    response = notes_engine.ask(AskRequest(question=LAUNCH, folders=["projects"], debug=True))

    paths = searched(response)
    assert "v1/projects/work/apollo.md" in paths
    assert all(p.split("/", 1)[1].startswith("projects/") for p in paths)
    assert "v1/projects-old/zephyr.md" not in paths
    selection = debug_of(response).folder_selection
    assert selection.method == "user"
    assert selection.selected == ["v1/projects", "v2/projects"]
    assert selection.available == ALL_FOLDERS


def test_the_look_alike_folder_is_found_without_a_filter(notes_engine: Engine) -> None:
    """The control for the test above: the same question does reach projects-old."""
    response = notes_engine.ask(AskRequest(question=LAUNCH, debug=True))
    assert "v1/projects-old/zephyr.md" in searched(response)


def test_a_folder_the_question_names_is_searched_without_those_words(
    notes_engine: Engine,
) -> None:
    question = "When is the Apollo launch, in my projects-old folder?"
    response = notes_engine.ask(AskRequest(question=question, debug=True))

    assert searched(response) == {"v1/projects-old/zephyr.md"}
    debug = debug_of(response)
    assert debug.searched_question == "When is the Apollo launch?"
    assert debug.folder_selection.selected == ["v1/projects-old"]
    # a folder given with the request wins over the words: they are searched as they are
    given = notes_engine.ask(AskRequest(question=question, folders=["meetings"], debug=True))
    assert all(p.split("/", 1)[1].startswith("meetings/") for p in searched(given))
    # words naming no folder of the vaults stay in the question, and nothing is scoped
    other = "When is the Apollo launch, in my archive folder?"
    unscoped = notes_engine.ask(AskRequest(question=other, debug=True))
    assert "v1/projects/work/apollo.md" in searched(unscoped)
    assert debug_of(unscoped).searched_question in (None, "", other)


def test_a_vault_name_prefix_picks_that_vaults_folder(notes_engine: Engine) -> None:
    question = "meetings retro standup espresso Apollo"
    response = notes_engine.ask(AskRequest(question=question, folders=["v2/meetings"], debug=True))
    assert searched(response) == {"v2/meetings/retro.md"}
    assert debug_of(response).folder_selection.selected == ["v2/meetings"]


def test_a_vault_id_prefix_picks_that_vaults_folder(notes_engine: Engine) -> None:
    v1 = notes_engine.vault("v1")
    question = "meetings retro standup espresso Apollo"
    response = notes_engine.ask(
        AskRequest(question=question, folders=[f"{v1.id}/meetings/"], debug=True)
    )
    assert searched(response) == {"v1/meetings/standup.md"}
    assert debug_of(response).folder_selection.selected == ["v1/meetings"]


def test_several_folders_are_searched_together(notes_engine: Engine) -> None:
    question = "Apollo launch review, espresso machine for the kitchen"
    response = notes_engine.ask(
        AskRequest(question=question, folders=["v1/meetings", "v2/meetings"], debug=True)
    )
    assert searched(response) == {"v1/meetings/standup.md", "v2/meetings/retro.md"}
    assert debug_of(response).folder_selection.selected == ["v1/meetings", "v2/meetings"]


def test_the_llm_ranks_folders_when_none_is_given(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM("The review moved to Thursday [N1].", folders='```json\n["v1/meetings"]\n```')
    engine = make_engine(llm=llm, ask=LLM_RANKING)

    response = engine.ask(AskRequest(question="When is the Apollo launch review?", debug=True))

    debug = debug_of(response)
    selection = debug.folder_selection
    assert (selection.method, selection.selected) == ("llm", ["v1/meetings"])
    # the pick is a preference: other folders are still searched, weighted below it
    picked = [c for c in debug.retrieved_chunks if (c.vault, c.rel_path) == ("v1", STANDUP)]
    others = [c for c in debug.retrieved_chunks if (c.vault, c.rel_path) != ("v1", STANDUP)]
    assert picked[0].rank == 1  # the model's folder comes first
    assert picked
    assert others
    for c in picked:
        assert c.score_gate == pytest.approx(0.7 * c.score_vector + 0.3 * c.score_lexical, abs=1e-5)
    for c in others:
        assert c.score_gate == pytest.approx(
            0.7 * 0.9 * c.score_vector + 0.3 * c.score_lexical, abs=1e-5
        )
    (ranking,) = llm.folder_calls
    listing = ranking.messages[-1].content
    assert all(f"- {folder}" in listing for folder in ALL_FOLDERS)
    assert ranking.temperature == 0.0


def test_a_garbage_folder_ranking_means_every_folder(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(folders="I would look in the meetings folder, probably.")
    response = make_engine(llm=llm, ask=LLM_RANKING).ask(AskRequest(question=LAUNCH, debug=True))

    debug = debug_of(response)
    assert (debug.folder_selection.method, debug.folder_selection.selected) == ("all", [])
    assert any("folder ranking failed" in note for note in debug.notes)
    folders = {path.rsplit("/", 1)[0] for path in searched(response)}
    assert {"v1/projects/work", "v1/projects-old", "v1/meetings"} <= folders


def test_a_ranking_of_unknown_folders_means_every_folder(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(folders='["v9/nowhere", "projects"]')
    response = make_engine(llm=llm, ask=LLM_RANKING).ask(AskRequest(question=LAUNCH, debug=True))
    assert debug_of(response).folder_selection.method == "all"
    assert "v1/projects-old/zephyr.md" in searched(response)


def test_user_folders_come_first_and_the_llm_ranks_the_others_after_them(
    make_engine: MakeEngine,
) -> None:
    """The seed's order: the user's folders weigh 1.0, the folders the model ranks among the
    rest follow them by position, and none of the user's folders is offered to the model."""
    llm = ScriptedLLM(folders='["v1/meetings", "v1/projects"]')
    response = make_engine(llm=llm, ask=LLM_RANKING).ask(
        AskRequest(question=LAUNCH, folders=["v1/projects"], debug=True)
    )
    assert len(llm.folder_calls) == 1
    offered = llm.folder_calls[0].messages[-1].content
    assert "- v1/meetings" in offered
    assert "- v1/projects\n" not in offered
    selection = debug_of(response).folder_selection
    assert selection.method == "user"
    assert selection.selected == ["v1/projects", "v1/meetings"]
    by_path = {c.rel_path: c for c in debug_of(response).retrieved_chunks}
    standup = by_path["meetings/standup.md"]  # found only through the model's pick
    assert standup.score_gate == pytest.approx(
        0.7 * 0.9 * standup.score_vector + 0.3 * standup.score_lexical, abs=1e-5
    )


def test_folder_ranking_can_be_switched_off(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(folders='["v1/meetings"]')
    response = make_engine(llm=llm, ask={"folder_ranking": False}).ask(
        AskRequest(question=LAUNCH, debug=True)
    )
    assert llm.folder_calls == []
    assert debug_of(response).folder_selection.method == "all"


@pytest.mark.parametrize("folders", [["meetings"], ["v1/projects", "v1/meetings", "v2/meetings"]])
def test_every_user_folder_weighs_the_same(notes_engine: Engine, folders: list[str]) -> None:
    """A folder the user names is a filter: its vault's position must not lower its scores."""
    question = "espresso machine kitchen retro"
    response = notes_engine.ask(AskRequest(question=question, folders=folders, debug=True))
    candidates = debug_of(response).retrieved_chunks
    assert "v2/meetings/retro.md" in searched(response)
    for c in candidates:
        assert c.score_gate == pytest.approx(0.7 * c.score_vector + 0.3 * c.score_lexical, abs=1e-5)
    assert [(r.vault, r.rel_path) for r in response.references] == [("v2", "meetings/retro.md")]
