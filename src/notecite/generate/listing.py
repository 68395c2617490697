"""The answer to a question that asks which notes a scope holds: the notes, each cited.

"What notes are tagged #baking?" is answered by the notes tagged #baking, not by any one
line of them (:mod:`notecite.retrieve.listing` tells such a question). The answer names
how many notes the scope holds and lists the newest of them by title, one a line, each
cited by its own source id, with the first line of its text (a gist of what it is about):
no model writes it, so nothing in it can be unsupported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from notecite.generate.answer import CitedAnswer
from notecite.generate.base import ContextSource
from notecite.generate.context import ContextPiece

GIST_CHARS = 100
"""The longest line of a note a listing shows beside its name."""

_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_WIKILINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MARKER = re.compile(r"\[N\d+\]")  # a citation marker a note writes is no citation here


def _plain(text: str) -> str:
    """``text`` without citation markers, its spaces made single."""
    return " ".join(_MARKER.sub(" ", text).split())


def _name(piece: ContextPiece) -> str:
    """The note's title, or its file name without the extension."""
    return " ".join(piece.title.split()) or PurePosixPath(piece.rel_path).stem


def gist(text: str) -> str:
    """The first line of a note's text that is not a heading, a rule or a table, as plain
    words (list marks, checkboxes, emphasis and link brackets dropped), cut at a word under
    :data:`GIST_CHARS`; "" when there is none."""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "|", "```", "---", "![", "<")):
            continue
        line = _LIST_MARK.sub("", line)
        line = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), line)
        line = _LINK.sub(r"\1", line)
        line = " ".join(line.replace("**", "").replace("__", "").split())
        if not any(c.isalnum() for c in line):
            continue
        if len(line) <= GIST_CHARS:
            return line
        return line[:GIST_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + " \u2026"
    return ""


def listing_text(notes: Sequence[tuple[str, str]], scope: str, total: int) -> str:
    """ "3 notes tagged #baking:" and one line per (name, gist), each cited ``[Nk]`` in
    order."""
    noun = "note" if total == 1 else "notes"
    head = f"{total} {noun} {scope}".rstrip()
    if len(notes) < total:
        head += f"; the {len(notes)} newest"
    plain = [
        (_MARKER.sub("", name).strip(), _MARKER.sub("", about).strip()) for name, about in notes
    ]
    lines = [
        f"- {name}: {about} [N{i}]" if about else f"- {name} [N{i}]"
        for i, (name, about) in enumerate(plain, start=1)
    ]
    return "\n".join([f"{head}:", *lines])


def listing_answer(pieces: Sequence[ContextPiece], scope: str, total: int) -> CitedAnswer:
    """The listing of the notes ``pieces`` stand for (one piece a note, newest first; the
    scope holds ``total`` notes in all) as an answer citing each of them."""
    sources = tuple(
        ContextSource(
            cid=f"N{i}",
            vault=p.vault,
            rel_path=p.rel_path,
            heading_path=p.heading_path,
            text=p.text,
            line_start=p.line_start,
            title=p.title,
        )
        for i, p in enumerate(pieces, start=1)
    )
    return CitedAnswer(
        text=listing_text(
            [(_name(p), gist(p.text)) for p in pieces], scope, max(total, len(pieces))
        ),
        outcome="answered",
        sources=sources,
        members={s.cid: [p.index] for s, p in zip(sources, pieces, strict=True)},
        cited=tuple(s.cid for s in sources),
    )
