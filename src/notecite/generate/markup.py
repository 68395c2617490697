"""Lines of a note that carry markup and no words for a reader: what a prompt can leave out.

A small local model reads its prompt at a few dozen tokens a second, so an image line, a
link definition, a table's rule line, a code fence or a heading that the source header
already names is waiting time that tells it nothing. Table cells are padded with runs of
spaces for the eye; one space says the same.
"""

from __future__ import annotations

import re

# an image alone, a link definition ("[x]: url"), an HTML tag alone, a table rule or a rule
_MARKUP = re.compile(r"^(!\[[^\]]*\]\([^)]*\)|\[[^\]]+\]:\s*\S+.*|<[^>]+>|[|:\- ]*-[|:\- ]*)$")
_FENCE = re.compile(r"^(```|~~~)")
_BARE_LINK = re.compile(r"^\[[^\]]*\]\([^)]*\)$")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)[\s#]*$")
_PADDING = re.compile(r"(?<=\S) {2,}")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_HIDDEN = re.compile(r"`[^\x00]?\x00(\d+)\x00")


def is_markup(line: str) -> bool:
    """``line`` holds only markup: an image, a link definition, an HTML tag, a table rule,
    a horizontal rule or a code fence."""
    stripped = line.strip()
    return bool(stripped) and bool(_MARKUP.match(stripped) or _FENCE.match(stripped))


def is_markup_or_link(line: str) -> bool:
    """``line`` is markup (:func:`is_markup`) or one markdown link and nothing else: a
    pointer, not a statement to quote or to ground a claim on (the evidence context keeps
    a bare link: it may be where the answer points)."""
    return is_markup(line) or bool(_BARE_LINK.match(line.strip()))


def names_section(line: str, heading_path: str) -> bool:
    """``line`` is a heading whose text is one of ``heading_path``'s headings (the source
    header already shows it)."""
    found = _HEADING.match(line.strip())
    if found is None:
        return False
    text = found.group(1).strip().lower()
    return any(part.lstrip("#").strip().lower() == text for part in heading_path.split(" > "))


def compact(line: str) -> str:
    """``line`` with runs of spaces inside it (table padding) made one; indentation kept."""
    return _PADDING.sub(" ", line)


def split_outside_code(pattern: re.Pattern[str], text: str) -> list[str]:
    """``pattern.split(text)`` that never cuts inside a code span: in "type `? Onboarding`"
    the question mark is part of what to type, not the end of a sentence."""
    spans: list[str] = []

    def hide(found: re.Match[str]) -> str:
        spans.append(found.group(0))
        # the span's first letter stays in view: "`Ctrl` opens" may begin a sentence
        return f"`{found.group(0)[1:2].strip('`')}\x00{len(spans) - 1}\x00"

    hidden = _CODE_SPAN.sub(hide, text.replace("\x00", ""))
    return [_HIDDEN.sub(lambda m: spans[int(m.group(1))], part) for part in pattern.split(hidden)]
