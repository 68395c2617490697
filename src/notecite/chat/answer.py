"""Citation validation of a chat answer: keep citations of real sources, else the fallback."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.chat.retrieval import RetrievedSource
from notecite.generate.citations import FALLBACK_ANSWER, acknowledges_gap, validate_citations

logger = logging.getLogger(__name__)

_MARKER = re.compile(r"[ \t]*\[N\d+\]")


@dataclass(frozen=True)
class CheckedAnswer:
    """The answer to show, the sources it cites (first-cited order), and what was removed."""

    text: str
    cited: tuple[RetrievedSource, ...]
    invalid: int
    fallback: bool = False


def check_answer(raw: str, sources: Sequence[RetrievedSource], *, grounded: bool) -> CheckedAnswer:
    """Validate the citations of ``raw`` against ``sources``.

    Citations that match no source are removed and counted. A ``grounded`` answer (RAG on)
    with no valid citation left becomes the fallback, unless it says itself that the notes
    do not hold the answer.
    """
    by_cid = {s.cid: s for s in sources}
    validated = validate_citations(raw, [s.context() for s in sources], "numbered")
    if validated.invalid:
        logger.warning("removed %d citation(s) matching no source", len(validated.invalid))
    cited = tuple(by_cid[cid] for cid in validated.cited)
    invalid = len(validated.invalid)
    if not grounded or cited or acknowledges_gap(validated.text):
        return CheckedAnswer(validated.text, cited, invalid)
    return CheckedAnswer(FALLBACK_ANSWER, (), invalid, fallback=True)


def without_markers(text: str) -> str:
    """The answer with its ``[Nk]`` markers taken out (``include_citations`` off)."""
    return _MARKER.sub("", text).strip()
