"""Dates as one term, whichever way they are written."""

from __future__ import annotations

import pytest

from notecite.generate.dates import find_dates


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("shipped on June 14, 2022.", ["2022-06-14"]),
        ("on the 14th of June 2022", ["2022-06-14"]),
        ("Sept. 3, 2021", ["2021-09-03"]),
        ("changelog.release.2022-06-14", ["2022-06-14"]),
        ("journal/2024/01/15", ["2024-01-15"]),
        ("version 1.2.3, v0.2022.06.14, 2022-06/14", []),
        ("Feb 30, 2021 is no date", []),
    ],
)
def test_dates_are_found_in_every_spelling(text: str, expected: list[str]) -> None:
    assert find_dates(text)[0] == expected


def test_a_date_is_blanked_so_its_numbers_are_not_read_again() -> None:
    found, rest = find_dates("landed June 14, 2022 in 0.99")
    assert found == ["2022-06-14"]
    assert "14" not in rest
    assert "2022" not in rest
    assert "0.99" in rest
