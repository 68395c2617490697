"""Inline markup read as the words it shows: highlights, callouts, footnotes, inline HTML.

``The base is ==150 mm of hardcore==`` reads "The base is 150 mm of hardcore" in Obsidian's
reading view, and ``> [!warning]- Don't forget`` is a quote titled "Don't forget" (titled
"Warning" when it gives no title). A footnote's reference ``slower reaction times[^1].`` is
read with what its definition says, ``slower reaction times (Van Dongen et al., 2003).``,
so the sentence carries its source ("Which study found ...?"), and the definition's line is
read without its ``[^1]:``. Inline HTML written for emphasis (``<b>nas-02</b>``, ``<span
style="...">``, ``<kbd>``, ``<br>``) is read as its words. The index reads them so: a quoted
line or a match is then the text a person sees, not its markup. Code is left as written (an
example of the syntax), and every line keeps its number.
"""

from __future__ import annotations

import re

from notecite.ingest.code_regions import prose_lines, rewrite_prose

# ==text==, not part of an arrow or a rule ("Capture==>Curate", "/* ====> */", "a == b")
_HIGHLIGHT = re.compile(r"(?<![=<>!])==(?=[^\s=<>])(.+?)(?<=[^\s=<>])==(?![=<>])")
# "> [!note]", "> [!warning]- Title", "> > [!tip]+ Title": a callout's opening line
_CALLOUT = re.compile(r"^(\s*(?:>\s*)+)\[!([A-Za-z][\w-]*)\][+-]?[ \t]*(.*)$")


# "[^1]: Smith et al., 2023." (a definition's first line); "[^note]" where it is referred to
_FOOTNOTE_DEFINITION = re.compile(r"^(\s{0,3})\[\^([^\]\s]+)\]:[ \t]*(\S.*)$")
_FOOTNOTE_REFERENCE = re.compile(r"[ \t]*\[\^([^\]\s]+)\](?!:)")
# Obsidian's inline footnote: "a claim^[Smith, 2023]"
_INLINE_FOOTNOTE = re.compile(r"[ \t]*\^\[([^\[\]]+)\]")


def _footnotes(text: str) -> str:
    """``text`` with each footnote reference read as `` (its definition)`` and each
    definition line as its text."""
    said: dict[str, str] = {}
    for line in prose_lines(text):
        found = _FOOTNOTE_DEFINITION.match(line)
        if found is not None:
            said.setdefault(found.group(2), found.group(3).strip().rstrip(".").rstrip())

    def read(prose: str) -> str:
        prose = _FOOTNOTE_DEFINITION.sub(r"\1\3", prose)
        return _FOOTNOTE_REFERENCE.sub(
            lambda m: f" ({said[m.group(1)]})" if m.group(1) in said else m.group(0), prose
        )

    text = rewrite_prose(text, "[^", read) if said else text
    return rewrite_prose(text, "^[", lambda prose: _INLINE_FOOTNOTE.sub(r" (\1)", prose))


# inline HTML a note writes for emphasis ("<b>nas-02</b>", "<span style=...>", "<kbd>"):
# the words stay, the tags go; a line break is a space, a code element a code span
_INLINE_TAG = re.compile(
    r"</?(?:b|i|u|em|strong|span|kbd|mark|sup|sub|small|big|font|s|del|ins|summary)\b[^<>]*>",
    re.IGNORECASE,
)
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_CODE_TAG = re.compile(r"</?code\b[^<>]*>", re.IGNORECASE)


def _without_tags(prose: str) -> str:
    prose = _BREAK.sub(" ", prose)
    prose = _CODE_TAG.sub("`", prose)
    return _INLINE_TAG.sub("", prose)


def _callout_title(match: re.Match[str]) -> str:
    quote, kind, title = match.groups()
    return f"{quote}{title or kind.replace('-', ' ').capitalize()}"


def readable_inline_markup(text: str) -> str:
    """``text`` with highlights and inline HTML as their words, each callout's opening line
    as its title and footnotes read where they are referred to."""
    text = _footnotes(text)
    text = rewrite_prose(text, "<", _without_tags)
    text = rewrite_prose(text, "==", lambda prose: _HIGHLIGHT.sub(r"\1", prose))
    return rewrite_prose(text, "[!", lambda prose: _CALLOUT.sub(_callout_title, prose))
