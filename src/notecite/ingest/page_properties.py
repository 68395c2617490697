"""Properties written as ``key:: value`` lines at the top of a note (Logseq, Dataview).

Logseq keeps a page's properties in its first lines (``alias:: Tom, the builder``,
``tags:: builder, garden``, ``title:: ...``) and has no YAML frontmatter; Obsidian's
Dataview reads the same form. The leading ``key:: value`` lines of a note's body are read as
its frontmatter would be, so a page is found by its alias, filtered by its tags
(``--filter tags=builder``) and titled by its ``title::``. Keys the YAML frontmatter gives
keep its values. The lines stay in the note's text.
"""

from __future__ import annotations

import re
from typing import Any

# "key:: value" (Logseq keys are lower case words with "-" or "_"; Dataview's any case)
_PROPERTY = re.compile(r"^([A-Za-z_][\w-]{0,40})::(?:[ \t]+(.*?))?\s*$")
# Logseq writes a list value comma-separated: "alias:: Tom, the builder"
_LIST_KEYS = frozenset({"alias", "aliases", "tags", "tag", "keywords"})
_LINK = re.compile(r"^\[\[(.+)\]\]$")


def _item(value: str) -> str:
    """One value as written, without a wikilink's brackets or a tag's "#"."""
    value = value.strip()
    linked = _LINK.match(value)
    return (linked.group(1) if linked else value).lstrip("#").strip()


def leading_properties(body: str) -> dict[str, Any]:
    """The ``key:: value`` lines that open ``body`` (blank lines before them skipped), as a
    mapping; list keys (tags, alias...) split at commas. Empty when the body opens otherwise."""
    found: dict[str, Any] = {}
    for line in body.split("\n"):
        if not line.strip():
            if found:
                break
            continue
        matched = _PROPERTY.match(line)
        if matched is None:
            break
        key, value = matched.group(1), matched.group(2) or ""
        if not value:
            continue
        if key.lower() in _LIST_KEYS:
            found[key.lower()] = [v for v in (_item(p) for p in value.split(",")) if v]
        else:
            found.setdefault(key, value)
    return found
