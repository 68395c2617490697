"""A note named legacy, deprecated or archived ranks below the one that replaced it, unless
the question asks about the old one; on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest

from notecite.engine import Engine
from notecite.retrieve.superseded import asks_for_superseded, is_superseded
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory

NOTES = {  # the legacy page says a little more about the option, so it leads on text alone
    "publish-legacy/configuration.md": (
        "# Configuration\n\nThe siteUrl option sets the address of the published site. "
        "The siteUrl option of the published site is read at every build.\n"
    ),
    "publish/site-url.md": (
        "# Site URL\n\nThe siteUrl option sets the address of the published site.\n"
    ),
    **{  # others, so that normalised scores are not just first and last
        f"misc/{topic}.md": f"# {topic.title()}\n\nNotes about {topic} and the week's plans.\n"
        for topic in ("gardening", "cooking", "travel", "reading", "music")
    },
}


def test_notes_named_superseded_by_path_or_title() -> None:
    assert is_superseded("dendron.topic.publish-legacy.configuration.md", "Configuration")
    assert is_superseded("Archive/2019 project.md", "Old plans")
    assert is_superseded("Archives/trip.md", "Trip")
    assert is_superseded("api/deprecated_endpoints.md", "Endpoints")
    assert is_superseded("notes/v1.md", "Obsolete setup")
    assert not is_superseded("dendron.topic.publish.config.siteUrl.md", "siteUrl")
    assert not is_superseded("people/archivists.md", "Archivists I met")
    assert not is_superseded("notes/legacyplanning.md", "Estate planning")
    # a title about an archive or a legacy is no mark of the note itself
    assert not is_superseded("4983.md", "NCBI GEO: archive for functional genomics data sets")
    assert not is_superseded("5012.md", "Of lineage and legacy: stem cells")


@pytest.mark.parametrize(
    "question",
    [
        "How did the legacy publishing set the site URL?",
        "Which options are deprecated?",
        "Where did the old config keep siteUrl?",
        "What was in the archive of 2019?",
    ],
)
def test_questions_about_what_was_replaced(question: str) -> None:
    assert asks_for_superseded(question)


def test_other_questions() -> None:
    assert not asks_for_superseded("Which option sets the address of the published site?")


def first(engine: Engine, question: str, vault: str) -> str:
    return engine.search(question, vaults=[vault], k=2)[0].rel_path


def test_the_current_note_ranks_above_the_legacy_one(
    notecite_engines: EngineFactory, store_options: dict[str, str]
) -> None:
    engine = notecite_engines(vaults={"notes": NOTES}, store=store_options)
    question = "Which siteUrl option sets the address of the published site?"
    assert first(engine, question, "notes") == "publish/site-url.md"
    response = engine.ask(AskRequest(question=question, vaults=["notes"], debug=True))
    assert response.debug is not None
    assert any("named legacy" in note for note in response.debug.notes)
    legacy = "Which siteUrl option set the address of the published site in legacy publishing?"
    assert first(engine, legacy, "notes") == "publish-legacy/configuration.md"
    # (one PostgreSQL database serves both engines: the second vault has its own name)
    plain = notecite_engines(
        vaults={"plain": NOTES}, store=store_options, retrieval={"superseded_weight": 1}
    )
    assert first(plain, question, "plain") == "publish-legacy/configuration.md"
