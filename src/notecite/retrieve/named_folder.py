"""A folder the question names: "What's in my Recipes folder that freezes well?".

People scope a question in words the way they would with ``--folder``: "in my Recipes
folder", "under the work/meetings folder", "in folder travel". When the words name a folder
of the searched vaults (its path, with or without its vault, or its last part, in any case,
one ``s`` more or less:
"recipe folder" names ``recipes``), the question is searched in that folder, and without
those words: they say where to look, not what to find, and "folder" is a word no note of
recipes holds. Words that name no folder of the vaults ("a smart folder in the side bar",
"my projects folder" in a vault without one) are the question's own and stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# "in my Recipes folder", "under the work/meetings folder", "in folder travel", "inside the
# folder `work/people`"
_NAMED = re.compile(
    r"\s*\b(?:in|under|inside|within|from)\s+"
    r"(?:(?:my|our|the)\s+(?P<before>[\w./-]+(?:[ ][\w./-]+)?)\s+folder\b"
    r"|(?:the\s+)?folder\s+(?P<quote>[`'\"]?)(?P<after>[\w./-]*\w)(?P=quote))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NamedFolder:
    """The folder labels a question names and the question without the words naming them."""

    question: str
    folders: tuple[str, ...]


def _forms(name: str) -> set[str]:
    """``name`` as a folder may write it: lower case, "work meetings" as ``work/meetings``
    or ``work-meetings``, with one ``s`` more or less."""
    name = name.strip("/ ").lower()
    if not name:
        return set()
    spelled = {name, name.replace(" ", "/"), name.replace(" ", "-"), name.replace(" ", "_")}
    return {form for each in spelled for form in (each, each + "s", each.removesuffix("s"))}


def named_folder(question: str, available: Sequence[str]) -> NamedFolder:
    """The folders of ``available`` (``vault/folder`` labels) the first folder phrase of
    ``question`` names, and ``question`` without that phrase; the question as it is and no
    folder when no phrase names one."""
    for found in _NAMED.finditer(question):
        wanted = _forms(found.group("before") or found.group("after") or "")
        labels = tuple(
            label
            for label in available
            if {label.lower(), label.partition("/")[2].lower(), label.rsplit("/", 1)[-1].lower()}
            & wanted
        )
        if labels:
            rest = question[: found.start()] + question[found.end() :]
            rest = re.sub(r"\s+([,;:?.!])", r"\1", " ".join(rest.split()))
            rest = re.sub(r"[,;:]+([?.!])", r"\1", rest).lstrip(",;: ")
            return NamedFolder(rest, labels)
    return NamedFolder(question, ())
