"""Questions about when something arrived favour release notes; other questions do not."""

from __future__ import annotations

import pytest

from notecite.engine import Engine
from notecite.retrieve.releases import asks_when_released, is_release_note
from notecite.testing import EngineFactory

NOTES = {  # the same words: the feature page a little ahead on text alone, the same date
    "features/calendar.md": (
        "---\ndate: 2021-06-21\n---\n# Calendar view\n\nThe calendar view shows the daily "
        "journal notes by month, a dot for each day you wrote.\n"
    ),
    "changelog/2021-06-21.md": (
        "---\ntitle: '0.47'\n---\n\n### Highlights\n\n- The calendar view shows "
        "the daily journal notes by month, a dot for each day you wrote.\n"
    ),
    **{  # others, so that normalised scores are not just first and last
        f"misc/{topic}.md": f"# {topic.title()}\n\nNotes about {topic} and the week's plans.\n"
        for topic in ("gardening", "cooking", "travel", "reading", "music")
    },
}


@pytest.mark.parametrize(
    "question",
    [
        "Which release introduced the calendar view?",
        "In which version did note ids switch to NanoID?",
        "When did task notes land?",
        "When was hashtag support added to the app?",
        "On what date was 0.116 released?",
        "Since when can I run exports from the CLI?",
    ],
)
def test_questions_about_when_something_arrived(question: str) -> None:
    assert asks_when_released(question)


@pytest.mark.parametrize(
    "question",
    [
        "How do I open the calendar view?",
        "When is the Lisbon launch?",
        "What is version control?",
        "What does release mean here?",
    ],
)
def test_other_questions(question: str) -> None:
    assert not asks_when_released(question)


def test_release_notes_by_title_or_name() -> None:
    assert is_release_note("changelog.release.2021-06-21.md", "0.47")
    assert is_release_note("notes/2024-03-02.md", "v2.3.1")
    assert is_release_note("docs/CHANGELOG.md", "")
    assert is_release_note("product/release-notes/spring.md", "Spring")
    assert not is_release_note("features/calendar.md", "Calendar view")
    assert not is_release_note("people/releasing-stress.md", "Letting go")


def first(engine: Engine, question: str, vault: str = "notes") -> str:
    return engine.search(question, vaults=[vault], k=2)[0].rel_path


def test_a_release_question_ranks_the_release_note_first(
    notecite_engines: EngineFactory, store_options: dict[str, str]
) -> None:
    engine = notecite_engines(vaults={"notes": NOTES}, store=store_options)
    assert first(engine, "Which release introduced the calendar view for the daily journal?") == (
        "changelog/2021-06-21.md"
    )
    assert first(engine, "How does the calendar view show the daily journal?") == (
        "features/calendar.md"
    )
    # (one PostgreSQL database serves both engines: the second vault has its own name)
    plain = notecite_engines(
        vaults={"plain": NOTES}, store=store_options, retrieval={"release_weight": 1}
    )
    question = "Which release introduced the calendar view for the daily journal?"
    assert first(plain, question, "plain") == "features/calendar.md"
