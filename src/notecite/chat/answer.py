"""How a chat answer is shown: markers taken out when a session hides citations."""

from __future__ import annotations

import re

_MARKER = re.compile(r"[ \t]*\[N\d+\]")


def without_markers(text: str) -> str:
    """The answer with its ``[Nk]`` markers taken out (``include_citations`` off)."""
    return _MARKER.sub("", text).strip()
