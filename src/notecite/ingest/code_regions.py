"""Rewrite a note's prose and leave its code as written.

A note that documents a syntax shows it in code: a fenced block or a code span holding
``![[note#Section]]`` or ``{{ fm.title }}`` is an example, not a link or a variable. Each
rewrite of the text a note is read as (:mod:`notecite.ingest.markdown`,
:mod:`notecite.ingest.variables`) goes through :func:`rewrite_prose`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def _rewrite_line(line: str, rewrite: Callable[[str], str]) -> str:
    """``line`` with ``rewrite`` applied to each stretch between its code spans."""
    out, last = [], 0
    for span in CODE_SPAN.finditer(line):
        out.append(rewrite(line[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(rewrite(line[last:]))
    return "".join(out)


def in_code(lines: Sequence[str]) -> list[bool]:
    """For each of ``lines``, whether it is a fence or a line of a fenced code block."""
    found: list[bool] = []
    fence = ""
    for line in lines:
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            found.append(True)
        elif opened:
            fence = opened.group(1)
            found.append(True)
        else:
            found.append(False)
    return found


def prose_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` outside its fenced code blocks (the fences left out too)."""
    lines = text.split("\n")
    return (line for line, code in zip(lines, in_code(lines), strict=True) if not code)


def rewrite_prose(text: str, marker: str, rewrite: Callable[[str], str]) -> str:
    """``text`` with ``rewrite`` applied to every line that holds ``marker``, outside fenced
    code blocks and code spans. ``rewrite`` must keep a line one line, so that every line
    after it keeps its number."""
    if marker not in text:
        return text
    lines = text.split("\n")
    for number, (line, code) in enumerate(zip(lines, in_code(lines), strict=True)):
        if not code and marker in line:
            lines[number] = _rewrite_line(line, rewrite)
    return "\n".join(lines)
