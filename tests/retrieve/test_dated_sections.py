"""A question about the latest entry of a log kept in one note reads the newest entry first
(real SQLite, the hash embedder, a scripted model that records its prompt)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite.retrieve.dated_sections import entry_day, newest_entry_first
from notecite.retrieve.retriever import Candidate
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory, ScriptedLLM
from tests.helpers import stored_chunk

NOW = datetime(2026, 11, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("heading_path", "day"),
    [
        ("# Boiler > ## Service log > ### 22 January 2026 — Priya Shah", (2026, 1, 22)),
        ("# Dana > ## 1:1s > ### 2026-04-22", (2026, 4, 22)),
        ("# Log > ## March 3rd, 2025: the move", (2025, 3, 3)),
        ("# Log > ## 14 Nov", (2026, 11, 14)),  # no year: the last one before now
    ],
)
def test_the_day_an_entry_is_headed_by(heading_path: str, day: tuple[int, int, int]) -> None:
    assert entry_day(heading_path, NOW) == datetime(*day, tzinfo=UTC)


@pytest.mark.parametrize("heading_path", ["", "# Boiler > ## Pressure", "# Boiler > ## 3 bar"])
def test_headings_that_name_no_day(heading_path: str) -> None:
    assert entry_day(heading_path, NOW) is None


def _candidate(
    rowid: int, heading_path: str, path: str = "boiler.md", text: str = "t"
) -> Candidate:
    return Candidate.unscored(stored_chunk(rowid, path, heading_path, text))


ASKED = "When did I last service the boiler?"  # nothing more than the log is about
LOG = "# Boiler > ## Service log"
OLD = _candidate(1, f"{LOG} > ### 14 November 2024 — Gary")
NEW = _candidate(2, f"{LOG} > ### 22 January 2026 — Priya")
NEXT = _candidate(3, "# Boiler > ## Next")
DAILY = _candidate(4, "# Thursday 22 January 2026", "daily/2026-01-22.md")


def test_the_newest_entry_is_read_first_and_the_older_ones_left_out() -> None:
    ordered, log = newest_entry_first(ASKED, [NEXT, DAILY, OLD], [NEXT, OLD, DAILY, NEW], NOW)
    assert [c.rowid for c in ordered] == [2, 3, 4]
    assert log == ("v", "boiler.md", LOG)


def test_a_log_of_one_entry_or_a_note_titled_by_its_day_is_left_as_it_is() -> None:
    assert newest_entry_first(ASKED, [DAILY, NEXT], [DAILY, NEXT, OLD], NOW) == (
        [DAILY, NEXT],
        None,
    )
    assert newest_entry_first(ASKED, [OLD, NEXT], [OLD, NEXT], NOW) == ([OLD, NEXT], None)
    other = _candidate(5, f"{LOG} > ### 2 March 2026", "other.md")  # another note's log
    assert newest_entry_first(ASKED, [OLD, NEXT], [OLD, other], NOW)[1] is None


def test_the_newest_entry_about_what_is_asked_not_the_newest_of_the_log() -> None:
    bike = "# Bike maintenance log > ## Log"
    entries = [
        _candidate(11, f"{bike} > ### 2025-09-20", "bike.md", "New brake pads front and rear."),
        _candidate(12, f"{bike} > ### 2026-03-22", "bike.md", "Brake pads again, both ends."),
        _candidate(13, f"{bike} > ### 2026-04-12", "bike.md", "New chain, 116 links."),
    ]
    question = "When did I last put new brake pads on the bike?"
    ordered, _ = newest_entry_first(question, [entries[2], entries[0]], entries, NOW)
    assert [c.rowid for c in ordered] == [12]  # the chain's entry, though newer, left out
    # a question with nothing more to say than the log: the newest entry
    ordered, _ = newest_entry_first("When did I last work on the bike?", [entries[0]], entries, NOW)
    assert [c.rowid for c in ordered] == [13]


def test_a_kept_newest_entry_with_no_older_one_kept_stays_where_it_ranks() -> None:
    assert newest_entry_first(ASKED, [NEXT, NEW], [NEXT, NEW, OLD], NOW) == ([NEXT, NEW], None)


BOILER = """# Boiler

Servicing: Norfolk Heat & Gas. The annual service is part of the breakdown cover.

## Service log

### 14 November 2024 — Gary Blake
- First service of the boiler since we moved in. Cost £85.

### 22 January 2026 — Priya Shah
- Boiler service: magnetic filter packed with sludge, cleaned. Cost £95.

## Next
- Next boiler service due January 2027.
"""


@pytest.mark.parametrize(
    "question",
    ["When did I last service the boiler?", "What happened at the most recent boiler service?"],
)
def test_the_latest_entry_of_a_log_reaches_the_model_first(
    notecite_engines: EngineFactory, question: str
) -> None:
    llm = ScriptedLLM("On 22 January 2026 [N1].")
    engine = notecite_engines(
        vaults={"home": {"boiler.md": BOILER}}, llm=llm, ask={"auto_rag": "off"}
    )
    response = engine.ask(AskRequest(question=question, debug=True))
    prompt = "\n".join(m.content for m in llm.answer_calls[-1].messages)
    assert "22 January 2026 — Priya Shah" in prompt
    assert "Gary Blake" not in prompt
    assert response.references[0].heading_path.endswith("### 22 January 2026 — Priya Shah")
    assert response.debug is not None
    assert any("newest dated entry" in note for note in response.debug.notes)
