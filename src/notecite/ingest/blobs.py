"""Encoded data in a note read as a mark, not as text: a pasted image's ``data:`` URI and
the lines of an embedded drawing.

A screenshot pasted into a note exported from Notion or Bear becomes
``![image](data:image/png;base64,iVBORw0...)``, hundreds of kilobytes on one line, and an
Obsidian Excalidraw drawing keeps its scene as lines of base64 in a ``compressed-json``
block. Read as text, one 300 KB image made 967 chunks of noise and took minutes to embed
on two cores. A URI's payload is read as ``…`` (its scheme and type stay, so the line still
says an image is there), a line of bare base64 as a blank line, and every line stays where
it was.
"""

from __future__ import annotations

import re

ELIDED = "…"
# "data:image/png;base64,iVBOR..." up to the closing bracket, quote or space
_DATA_URI = re.compile(r"(data:[\w.+-]+/[\w.+-]+(?:;[\w=.+-]+)*;base64,)[A-Za-z0-9+/=]+")
# a line of nothing but base64, 100 characters or more (a compressed drawing, a key dump)
_BASE64_LINE = re.compile(r"^\s*[A-Za-z0-9+/]{100,}={0,2}\s*$")


def without_blobs(text: str) -> str:
    """``text`` with each ``data:`` URI's payload as ``…`` and each line of bare base64
    blank."""
    if "base64," in text:
        text = _DATA_URI.sub(lambda m: m.group(1) + ELIDED, text)
    if not any(len(line) >= 100 for line in text.split("\n")):
        return text
    return "\n".join("" if _is_base64(line) else line for line in text.split("\n"))


def _is_base64(line: str) -> bool:
    """A line of bare base64: 100 characters or more of its alphabet, with upper case, lower
    case and digits all in it, as encoded bytes have (a DNA sequence, a run of one letter or
    a hex digest is text)."""
    return bool(
        _BASE64_LINE.match(line)
        and any(c.isupper() for c in line)
        and any(c.islower() for c in line)
        and any(c.isdigit() for c in line)
    )
