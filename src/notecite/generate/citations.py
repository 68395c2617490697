"""Citation parsing and validation: keep citations that match a retrieved chunk, drop the rest."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from notecite.generate.base import ContextSource
from notecite.generate.markup import code_roles
from notecite.generate.prompts import TOP_OF_NOTE

_NUMBERED = re.compile(r"\[\s*(N\d+(?:\s*[,;]\s*N\d+)*)\s*\]")
_FILE_SECTION = re.compile(r"\[File:\s*([^,\]]+?)\s*,\s*Section:\s*([^\]]*?)\s*\]", re.IGNORECASE)
_ACKNOWLEDGES_GAP = re.compile(
    r"(don't|do not|doesn't|does not|didn't|did not) (have|contain|include|mention|provide|say|"
    r"specify|state)|not (enough|sufficient) information|no (information|mention|details?)|"
    r"(cannot|can't|unable to) (answer|find|determine|tell)|isn't (mentioned|specified|stated)|"
    r"is not (mentioned|specified|stated|provided)|not (mentioned|specified|provided|stated) in|"
    r"insufficient information|no relevant",
    re.IGNORECASE,
)

FALLBACK_ANSWER = "I don't have enough information in your notes to answer that."

# What a model calls its prompt ("the context", "the provided information"), which the
# reader never saw: in an answer saying the notes lack something, it is "your notes".
_THE_CONTEXT = r"(?:the|this)\s+(?:given\s+|provided\s+|above\s+)?(?:context|information provided)"
_CONTEXT_DOES_NOT = re.compile(rf"\b{_THE_CONTEXT}\s+(?:does\s+not|doesn't|did\s+not)\b", re.I)
_CONTEXT_VERB = re.compile(
    rf"\b{_THE_CONTEXT}\s+(provide|mention|state|say|contain|include|give|specifie|describe)s\b",
    re.IGNORECASE,
)
_CONTEXT_NOUN = re.compile(
    r"\b(?:the|this)\s+(?:given|provided|above)\s+(?:context|information)\b"
    r"|\bthe\s+context\b(?!\s+(?:menu|of)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ValidatedAnswer:
    """The answer with invalid citations removed, and which sources it cites."""

    text: str
    cited: tuple[str, ...]
    invalid: tuple[str, ...]


def acknowledges_gap(text: str) -> bool:
    """Does the answer say the notes do not hold the answer?"""
    return bool(_ACKNOWLEDGES_GAP.search(text))


def as_said_of_the_notes(text: str) -> str:
    """An answer saying the notes lack something, with the model's name for its prompt
    made the reader's: "The context does not provide X" -> "Your notes do not provide X"."""
    said = _CONTEXT_DOES_NOT.sub("your notes do not", text)
    said = _CONTEXT_VERB.sub(
        lambda m: f"your notes {m.group(1).replace('specifie', 'specify')}", said
    )
    said = _CONTEXT_NOUN.sub("your notes", said)
    # a sentence that now starts with "your notes" starts with a capital
    return re.sub(r"(^|[.!?]\s+)your notes", lambda m: f"{m.group(1)}Your notes", said)


def _norm_section(text: str) -> str:
    parts = [p.strip().lstrip("#").strip().lower() for p in text.split(">")]
    joined = " > ".join(p for p in parts if p)
    return "" if joined == TOP_OF_NOTE else joined  # the context's name for "no heading"


def _match_file_section(
    file: str, section: str, sources: Sequence[ContextSource]
) -> ContextSource | None:
    wanted_file = file.strip().strip("'\"`").lower()
    same_file = [
        s
        for s in sources
        if s.rel_path.lower() == wanted_file
        or PurePosixPath(s.rel_path).name.lower() == wanted_file
    ]
    wanted = _norm_section(section)
    for source in same_file:
        heading = _norm_section(source.heading_path)
        last = heading.split(" > ")[-1] if heading else ""
        if wanted in {heading, last} or (not wanted and not heading):
            return source
    if len(same_file) == 1 and not wanted:
        return same_file[0]
    return None


def _tidy_prose(text: str) -> str:
    text = re.sub(r"(?<=\S)[ \t]+([.,;:!?])", r"\1", text)
    return re.sub(r"(?<=\S)[ \t]{2,}", " ", text)  # a line's indent stays (bare code)


def _tidy(text: str) -> str:
    """``text`` without the spaces a removed citation left ("x [N9]." -> "x."); each line
    keeps its indent, and the lines of a fenced code block all their spaces (they are
    code, fenced or not: grounding fences a JSON block written bare)."""
    lines = text.split("\n")
    tidied = (
        _tidy_prose(line) if role == "text" else line
        for line, role in zip(lines, code_roles(lines), strict=True)
    )
    return "\n".join(tidied).strip()


def validate_citations(
    answer: str, sources: Sequence[ContextSource], citation_style: str
) -> ValidatedAnswer:
    """Remove citations that match no source; list the cited source ids in first-cited order.

    Both styles are recognised whatever was asked for, since small models mix them up.
    """
    by_cid = {s.cid: s for s in sources}
    cited: list[str] = []
    invalid: list[str] = []

    def numbered(match: re.Match[str]) -> str:
        ids = [i.strip() for i in re.split(r"[,;]", match.group(1))]
        good = [i for i in ids if i in by_cid]
        invalid.extend(i for i in ids if i not in by_cid)
        cited.extend(good)
        return "".join(f"[{i}]" for i in good)

    def file_section(match: re.Match[str]) -> str:
        source = _match_file_section(match.group(1), match.group(2), sources)
        if source is None:
            invalid.append(match.group(0))
            return ""
        cited.append(source.cid)
        if citation_style == "numbered":
            return f"[{source.cid}]"
        return match.group(0)

    text = _NUMBERED.sub(numbered, answer)
    text = _FILE_SECTION.sub(file_section, text)
    return ValidatedAnswer(_tidy(text), tuple(dict.fromkeys(cited)), tuple(invalid))
