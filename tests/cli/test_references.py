"""How `notecite ask` and `notecite chat` print the references under the answer."""

from __future__ import annotations

import pytest

from notecite.cli.ask_cmd import print_references
from notecite.schemas.ask import AskResponse, Reference


def _reference(cid: str, path: str, section: str, quote: str | None = None) -> Reference:
    return Reference(
        vault="me",
        rel_path=path,
        heading_path=section,
        chunk_index=0,
        cid=cid,
        quote=quote,
        quote_line=6 if quote else None,
    )


def test_two_chunks_of_one_source_are_listed_under_one_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Chunks of a note that touch are one source, [N1]: its second chunk is listed under
    the first, not as a second [N1]."""
    response = AskResponse(
        answer="It doubles in 4-6 hours [N1]. Feed it daily [N2].",
        references=[
            _reference("N1", "guide.html", "# Starter > ## Routine", "It doubles in 4-6 hours."),
            _reference("N1", "guide.html", "# Starter"),
            _reference("N2", "bread.md", "# Bread", "Feed it daily."),
        ],
    )
    print_references(response)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "",
        "References:",
        "[N1] me/guide.html:6 > # Starter > ## Routine",
        "     \u201cIt doubles in 4-6 hours.\u201d",
        "     me/guide.html > # Starter",
        "[N2] me/bread.md:6 > # Bread",
        "     \u201cFeed it daily.\u201d",
    ]
