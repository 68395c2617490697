"""Obsidian's inline markup read as the words it shows: ``==highlights==`` and callouts.

``The base is ==150 mm of hardcore==`` reads "The base is 150 mm of hardcore" in Obsidian's
reading view, and ``> [!warning]- Don't forget`` is a quote titled "Don't forget" (titled
"Warning" when it gives no title). The index reads them so: a quoted line or a match is then
the text a person sees, not its markup. Code is left as written (an example of the syntax),
and every line keeps its number.
"""

from __future__ import annotations

import re

from notecite.ingest.code_regions import rewrite_prose

# ==text==, not part of an arrow or a rule ("Capture==>Curate", "/* ====> */", "a == b")
_HIGHLIGHT = re.compile(r"(?<![=<>!])==(?=[^\s=<>])(.+?)(?<=[^\s=<>])==(?![=<>])")
# "> [!note]", "> [!warning]- Title", "> > [!tip]+ Title": a callout's opening line
_CALLOUT = re.compile(r"^(\s*(?:>\s*)+)\[!([A-Za-z][\w-]*)\][+-]?[ \t]*(.*)$")


def _callout_title(match: re.Match[str]) -> str:
    quote, kind, title = match.groups()
    return f"{quote}{title or kind.replace('-', ' ').capitalize()}"


def readable_inline_markup(text: str) -> str:
    """``text`` with highlights as their words and each callout's opening line as its title."""
    text = rewrite_prose(text, "==", lambda prose: _HIGHLIGHT.sub(r"\1", prose))
    return rewrite_prose(text, "[!", lambda prose: _CALLOUT.sub(_callout_title, prose))
