"""The date a note's file name gives it: daily notes and dated notes named by their day.

Obsidian's daily notes are ``2026-01-22.md`` with no frontmatter, Logseq's journals
``2026_01_22.md``, Dendron's ``daily.journal.2026.01.22.md``, a meeting note
``2026-03-04 platform sync.md``, a Zettelkasten note ``202601221030 Idea.md``. A copied,
synced or cloned vault gives every file the day it was copied as its modification time, so
without the name such a note would be dated the day the vault arrived and "What did I do on
22 January?" would find nothing. A date the frontmatter gives comes first; the name's comes
before the file's modification time.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import PurePosixPath

# 2026-01-22, 2026_01_22, 2026.01.22 (one separator throughout), not part of a longer number
_SEPARATED = re.compile(r"(?<!\d)((?:19|20)\d\d)([-_.])(\d\d)\2(\d\d)(?![\d])")
# 20260122, 202601221030, 20260122103015 at the start of the name (a Zettelkasten id)
_COMPACT = re.compile(r"^((?:19|20)\d\d)(\d\d)(\d\d)(?:\d{4}|\d{6})?(?!\d)")
# .../2026/01/22.md or .../2026/2026-01/22.md: a folder per year and month, a file per day
_FOLDERS = re.compile(r"(?:^|/)((?:19|20)\d\d)/(?:\1-)?(\d\d)/(\d\d)(?!\d)[^/]*$")


def _valid(year: str, month: str, day: str) -> datetime | None:
    try:
        return datetime(int(year), int(month), int(day), tzinfo=UTC)
    except ValueError:
        return None


def date_in_name(rel_path: str) -> datetime | None:
    """The calendar date in ``rel_path``'s file name (its first valid one), or in its last
    folders and name (``2026/01/22.md``); ``None`` when it names none."""
    stem = PurePosixPath(rel_path).stem
    for match in _SEPARATED.finditer(stem):
        found = _valid(match.group(1), match.group(3), match.group(4))
        if found is not None:
            return found
    compact = _COMPACT.match(stem)
    if compact is not None:
        found = _valid(*compact.groups())
        if found is not None:
            return found
    folders = _FOLDERS.search(rel_path)
    return _valid(*folders.groups()) if folders is not None else None
