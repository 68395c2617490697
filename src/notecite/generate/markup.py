"""Lines of a note that carry markup and no words for a reader: what a prompt can leave out.

A small local model reads its prompt at a few dozen tokens a second, so an image line, a
link definition, a table's rule line, a code fence or a heading that the source header
already names is waiting time that tells it nothing. Table cells are padded with runs of
spaces for the eye; one space says the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

# an image alone, a link definition ("[x]: url"), HTML tags alone (an embedded video's
# "<div ...><iframe ...></iframe></div>"), a table rule or a rule
_MARKUP = re.compile(
    r"^(!\[[^\]]*\]\([^)]*\)|\[[^\]]+\]:\s*\S+.*|(?:<[^>]+>\s*)+|[|:\- ]*-[|:\- ]*)$"
)
# a backtick fence's info string holds no backtick (CommonMark): "```x```" is a code span
_FENCE = re.compile(r"^(?:`{3,}[^`]*$|~{3,})")
_BARE_LINK = re.compile(r"^\[[^\]]*\]\([^)]*\)$")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)[\s#]*$")
_PADDING = re.compile(r"(?<=\S) {2,}")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_HIDDEN = re.compile(r"`[^\x00]?\x00(\d+)\x00")


def is_markup(line: str) -> bool:
    """``line`` holds only markup: an image, a link definition, an HTML tag, a table rule,
    a horizontal rule or a code fence."""
    stripped = line.strip()
    return bool(stripped) and bool(_MARKUP.match(stripped) or is_fence(stripped))


def is_fence(line: str) -> bool:
    """``line`` opens or closes a code block (```` ``` ```` or ``~~~``)."""
    return bool(_FENCE.match(line.strip()))


LineRole = Literal["open", "close", "code", "text"]


def code_roles(lines: Iterable[str]) -> list[LineRole]:
    """What each of ``lines`` is to the fenced code blocks: the fence that opens one, the
    fence that closes it, a line inside it, or text (a block left open runs to the end)."""
    roles: list[LineRole] = []
    inside = False
    for line in lines:
        if is_fence(line):
            roles.append("close" if inside else "open")
            inside = not inside
        else:
            roles.append("code" if inside else "text")
    return roles


def is_markup_or_link(line: str) -> bool:
    """``line`` is markup (:func:`is_markup`) or one markdown link and nothing else: a
    pointer, not a statement to quote or to ground a claim on (the evidence context keeps
    a bare link: it may be where the answer points)."""
    return is_markup(line) or bool(_BARE_LINK.match(line.strip()))


def is_heading(line: str) -> bool:
    """``line`` is a markdown heading ("## Hotel"), not a tag at a line's start ("#house
    today": a heading's marks are followed by a space)."""
    return _HEADING.match(line.strip()) is not None


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


# an inline field, Dataview's and Logseq's "due:: 2026-04-15": a line of its own
_FIELD = r"[A-Za-z_][\w -]{0,40}::(?:\s|$)"
# a line that starts a block of its own: a list item, a heading, a quote, a table row, a
# fence, a field
_BLOCK_START = re.compile(rf"^\s*(?:[-*+]\s|\d{{1,3}}[.)]\s|#|>|\||```|~~~|{_FIELD})")
_FIELD_LINE = re.compile(rf"^{_FIELD}")
_FILLED_FIELD = re.compile(r"^[A-Za-z_][\w -]{0,40}::[ \t]+\S")


def is_field(line: str) -> bool:
    """Is ``line`` an inline field with a value ("Budget:: £1,800"): a statement of its own,
    however few its words."""
    return bool(_FILLED_FIELD.match(line.strip()))


# a line after which a new line is a new statement: a sentence's end, a lead-in's colon
_STATEMENT_END = re.compile(r"[.!?:]['\")\]*_`]*$")


@dataclass(frozen=True)
class Unwrapped:
    """A statement line of a note: physical lines of one hard-wrapped paragraph or list item
    joined with spaces.

    Attributes:
        text: the joined text.
        index: the 0-based index of its first physical line.
        breaks: offsets in ``text`` where each later physical line begins.
    """

    text: str
    index: int
    breaks: tuple[int, ...] = ()

    def line_of(self, offset: int) -> int:
        """The 0-based index of the physical line that holds ``text[offset]``."""
        return self.index + sum(1 for b in self.breaks if b <= offset)


def unwrap(lines: Sequence[str]) -> list[Unwrapped]:
    """``lines`` with hard-wrapped text joined: a line continues the one before it when that
    one is prose of more than one word that does not end a statement, and this one starts no
    block of its own and no capitalised word ("VS Code (since 1.79)" / "now has the ability
    to paste images"). Lines of a code block, blank lines, headings, table rows, markup and
    bare links stay as they are."""
    found: list[Unwrapped] = []
    joinable = False  # may the next line continue the last one found?
    for index, (line, role) in enumerate(zip(lines, code_roles(lines), strict=True)):
        stripped = line.strip()
        text_line = role == "text"  # no fence, no line of a code block
        if (
            joinable
            and stripped
            and text_line
            and not _BLOCK_START.match(line)
            and not is_markup_or_link(stripped)
            # "now has ...", "[1.79](...)": a capital may start a statement of its own
            and not stripped[0].isupper()
        ):
            last = found[-1]
            start = len(last.text) + 1
            found[-1] = Unwrapped(f"{last.text} {stripped}", last.index, (*last.breaks, start))
        else:
            found.append(Unwrapped(line, index))
        text = found[-1].text.strip()
        joinable = (
            bool(text)
            and text_line
            and not text.startswith(("#", "|"))
            and not _FIELD_LINE.match(text)
            and not is_markup_or_link(text)
            and not _STATEMENT_END.search(text)
            and len(text.split()) > 1  # one word is a label ("duplicateSearchMode")
        )
    return found
