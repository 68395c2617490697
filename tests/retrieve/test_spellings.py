"""A question in British spelling finds, and is answered from, notes in American spelling."""

from __future__ import annotations

from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory

NOTES = {
    "graph.md": (
        "# Graph\n\n## Groups\n\n"
        "Groups layer on top of the default coloring: the last matching group wins.\n\n"
        "## Layout\n\nNodes are centered on the current note.\n"
    ),
    "daily.md": "# Daily notes\n\nDaily notes are created in the journals folder.\n",
}


def test_a_question_spelled_the_british_way_retrieves_and_grounds(
    notecite_engines: EngineFactory,
) -> None:
    engine = notecite_engines(
        vaults={"notes": NOTES}, ask={"auto_rag": "auto", "folder_ranking": "off"}
    )
    response = engine.ask(
        AskRequest(question="Which colouring wins when two groups match?", debug=True)
    )
    assert response.debug is not None
    best = response.debug.retrieved_chunks[0]
    assert best.rel_path == "graph.md"
    assert best.heading_path.endswith("Groups")
    # every word of the question is in some note, spelled one way or the other
    assert "in no note" not in response.debug.auto_rag.reason
    assert not response.abstained
    assert [r.rel_path for r in response.references if r.cid] == ["graph.md"]
