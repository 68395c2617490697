"""Claim-level grounding: every claim of an answer is matched to a line of the notes.

The answer is split into claims (sentences and list items, each with the ``[Nk]`` markers
written after it; a fenced code block is one claim, each of its lines a code span the notes
must hold, kept whole with its markers after its closing fence). A claim's support in a
source is its best line of that source (read under the note's title and section; two
neighbouring sentences are a candidate line too, and, for a claim quoting a code span of
several words, a line ending in a colon with the lines it introduces), scored by
how many of the claim's content terms the line holds (numbers, code spans and names must be
there; common words count less), optionally mixed with the cosine of their vectors.
A claim is:

- ``supported`` by a source it cites;
- ``recited`` when it cites none and a source supports it: one of the sources cited by the
  next claim that cites any ("X. Y [N2][N3]": a model often writes its markers once, after
  the last claim they are meant for), else the best of all (of sources that hold it about
  as well, the one whose line also holds the question's words, then the best-ranked);
- ``recited`` too when the sources it cites do not support it and another one does (that
  source's citation takes their place);
- ``unsupported`` otherwise: it is removed from the answer, unless it holds no content
  term of its own (a lead-in such as "Here is what the notes say:").

A claim that answers a yes/no question with "Yes" or "No" and says nothing the question
did not ("Yes, Foam shows canvas boards.") is ``unsupported`` as well: a line that says so
and a line that says the opposite share the same words, so no line can check it.

A claim whose content is only its marker ("The version is [N3].") is repaired with the
supporting line of the cited source (and, for a question about a release, with the title of
the release note it points to: "The release is 0.33: ..."). A marker written where a
release's name goes ("Since the release [N4], ...") is given that name, from the release
note whose lines hold most of what its sentence says (:func:`release_markers`). Each
supported claim keeps its supporting line, so a reference can point at the exact line.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Literal

import numpy as np

from notecite.generate.base import ContextSource, Owners
from notecite.generate.dates import days_named, find_dates
from notecite.generate.markup import (
    code_roles,
    is_fence,
    is_markup_or_link,
    split_outside_code,
    unwrap,
)
from notecite.generate.prompts import header_section, shown_paths
from notecite.generate.reading import asks_yes_or_no
from notecite.retrieve.releases import asks_when_released, is_release_note
from notecite.retrieve.terms import STOPWORDS, possessive_names, stem
from notecite.retrieve.units import abbreviations

Embed = Callable[[Sequence[str]], np.ndarray]
Status = Literal["supported", "recited", "unsupported", "neutral"]

_MARKERS = re.compile(r"(?:\s*\[N\d+\])+")
_ONE_MARKER = re.compile(r"\[(N\d+)\]")
_CLAIM_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[*_`]?[A-Z0-9])|(?<=\]\.)\s+|\n+")
_MARKERS_AFTER_STOP = re.compile(r"([.!?])((?:\s*\[N\d+\])+)")
_CODE = re.compile(r"`([^`]+)`")
_LIST_NUMBER = re.compile(r"\d{1,3}[.)]")
_LIST_ITEM = re.compile(r"^(\d{1,3})([.)]\s+)")  # a numbered list item's number
_NUMBER = re.compile(r"\b\d+(?:[.,:/-]\d+)*\b")
_WORD = re.compile(r"[^\W_]+(?:[._/-][^\W_]+)*", re.UNICODE)
_CAMEL = re.compile(r"[a-z][A-Z]")
# a number with its unit written on ("10m", "90s", "4gb", "30d", "5min")
_QUANTITY = re.compile(r"(\d+(?:\.\d+)?)[a-z]{1,3}")
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_LINE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_FILLER_TEXT = """
also yes no one two use used using way get got make makes made need needs able answer
context source sources based according says said mentioned following information provided
include includes including like just can
"""
_FILLER = frozenset(_FILLER_TEXT.split())
# A sentence about the prompt, not the notes ("This is mentioned in the context when it
# states ..."): the reader never saw a "context", and the claims around it say the content.
_ABOUT_THE_CONTEXT = re.compile(
    r"\b(?:the|this|that)\s+(?:given\s+|provided\s+|above\s+)?context"
    # and not "the context menu", "the context of a link"
    r"(?=\s*(?:[.,;:)\]]|$)|\s+(?:states?|says?|mentions?|provided|given|above|below|does|"
    r"provides?|contains?|describes?|explains?|includes?|shows?|"
    r"doesn't|when|where|that|which|is|and|to|from|under|you|\[))",
    re.IGNORECASE,
)
# A sentence that says where the answer is, not what it is ("This information is provided
# in the context of the [[daily-note]]", "More details are listed in [N2]"): it holds the
# source's name, so a line "supports" it, but it states nothing the question asked.
_WHERE_IT_IS = re.compile(
    r"^(?:this|that|the|such|these|more|further)\s+(?:information|info|details?|answer)\s+"
    r"(?:is|are|was|were|can\s+be)\s+(?:also\s+)?(?:provided|mentioned|given|found|stated|"
    r"described|listed|shown|available|explained|documented|covered|displayed|located|"
    r"contained|included|discussed|outlined|detailed|presented|specified|noted)\b",
    re.IGNORECASE,
)
# "Yes, ..." / "No ..." opening a claim: a verdict on a yes/no question
_VERDICT = re.compile(r"(?:yes|no)\b", re.IGNORECASE)
# "the context", "the provided context", "this context above": the prompt, as a model says it
_THE_CONTEXT = (
    r"(?:the|this)\s+(?:given\s+|provided\s+|above\s+)?context(?:\s+(?:provided|given|above))?"
)
# "According to the context, " before what a claim says: the reader never saw a context.
_CONTEXT_LEAD_IN = re.compile(
    r"^(?:(?:according\s+to|based\s+on|as\s+(?:stated|mentioned|described|shown)\s+in|from|in)"
    rf"\s+{_THE_CONTEXT}"
    r"|(?:the|this)\s+context\s+(?:states|says|mentions|shows)(?:\s+that)?)"
    r"(?!\s+of\b)\s*,?\s*",  # not "In the context of publishing, ..."
    re.IGNORECASE,
)

# The same said after the claim ("..., as stated in the context."), before its end.
_CONTEXT_TAIL = re.compile(
    r",?\s+(?:according\s+to|based\s+on|as\s+(?:stated|mentioned|described|shown|noted|"
    rf"given|explained)\s+in)\s+{_THE_CONTEXT}"
    r"(?=(?:\s*\[N\d+\])*\s*[.!]?(?:\s*\[N\d+\])*\s*$)",
    re.IGNORECASE,
)

# The same said inside the claim, after what it names ("LTeX is the checker mentioned in
# the context that is heavier"): not after "is" ("This is mentioned in the context under
# ..." says where the answer is, and stays as it is).
_CONTEXT_INSIDE = re.compile(
    r"(?<!\bis)(?<!\bare)(?<!\bwas)(?<!\bwere)(?<!\bbe)(?<!\bbeen)"
    r"\s+(?:mentioned|listed|described|named|shown|stated|given|provided)\s+in\s+"
    rf"{_THE_CONTEXT}(?=\s+(?:that|which|who|as|and|is|are|was|were)\b)",
    re.IGNORECASE,
)


def _without_context_lead_in(claim: Claim) -> Claim:
    """``claim`` without a lead-in, a closing clause or an inner phrase about the prompt
    ("According to the context, 1,500 refugees settled there", "1,500 refugees settled there,
    as stated in the context" say "1,500 refugees settled there"; "LTeX is the one mentioned
    in the context that is heavier" says "LTeX is the one that is heavier")."""
    text = _CONTEXT_TAIL.sub("", _CONTEXT_LEAD_IN.sub("", claim.text, count=1), count=1)
    text = _CONTEXT_INSIDE.sub("", text)
    if text == claim.text or not text.strip():
        return claim
    return Claim(text[0].upper() + text[1:], claim.cids)


# A marker that says where something is written, not what ("can be found at [N3]").
_POINTS_TO_A_PLACE = re.compile(
    r"\b(?:found|described|documented|explained|listed|covered|detailed|mentioned|shown)\s+"
    r"(?:at|in|on|under)\W*$",
    re.IGNORECASE,
)
# A claim must share at least this share of its content terms with its best line.
SUPPORT_THRESHOLD = 0.5
# A claim cited to no source it holds is given the best-ranked source whose line supports it
# within this much of the best line's score (replayed dev answers: gold cited 219 -> 221 of
# 267, none lost; 0.05 moves none, 0.2 and more the same two)
RANK_MARGIN = 0.1
# A claim whose cited source barely holds it is given the source whose line holds it by at
# least this much more ("... opens the `projects.md` file [N4]": N4's best line 0.5, the
# line of N1 that says it 1.0). Replayed dev answers: gold cited 289 -> 290 of 357 at 0.2,
# 0.3 or 0.5, none lost; one claim moves.
BETTER_ELSEWHERE = 0.3


REPEAT_MIN_CHARS = 12
"""Characters a claim's words must hold for a second copy of it to be left out (a short
list item, "Yes." or "1.", may well come twice)."""


@dataclass(frozen=True)
class Claim:
    """One sentence or list item of an answer, with the source ids cited right after it."""

    text: str
    cids: tuple[str, ...]

    @property
    def body(self) -> str:
        """The claim without its markers."""
        return _MARKERS.sub("", self.text).strip()

    @property
    def is_code(self) -> bool:
        """Is the claim a fenced code block of the answer (one claim, fences and all)? A
        line of three backticks around text ("```x``` [N1]") is a code span, not a block."""
        return _opens_code_block(self.text)

    @property
    def content(self) -> str:
        """What the claim says: its body without a list item's number; for a code block,
        each of its lines as a code span (each must be a line of the notes, as written)."""
        if self.is_code:
            inner = self.body.split("\n")[1:]
            if inner and is_fence(inner[-1]):
                inner = inner[:-1]
            return " ".join(f"`{line.strip().strip('`')}`" for line in inner if line.strip())
        return _LIST_ITEM.sub("", self.body)


@dataclass(frozen=True)
class SupportLine:
    """The line of a source that supports a claim."""

    cid: str
    text: str
    line: int  # 1-based line of the note (0 when the source has no line span)
    score: float


@dataclass
class GroundedClaim:
    """A claim with its verdict and best supporting line."""

    claim: Claim
    status: Status
    score: float = 0.0
    support: SupportLine | None = None
    cids: list[str] = field(default_factory=list)
    repaired: bool = False
    # the lines of the claim's other cited sources, when a repair quoted several
    also: tuple[SupportLine, ...] = ()


@dataclass(frozen=True)
class Grounding:
    """The grounded answer: its text, claims, and the supporting line of each cited id."""

    text: str
    claims: tuple[GroundedClaim, ...]
    cited: tuple[str, ...]
    support: dict[str, SupportLine]

    @property
    def removed(self) -> int:
        """Claims taken out for lack of support."""
        return sum(1 for c in self.claims if c.status == "unsupported")

    @property
    def supported(self) -> int:
        """Claims backed by a line of the notes."""
        return sum(1 for c in self.claims if c.status in ("supported", "recited"))


_DOUBLED = re.compile(r"([bdgmnprt])\1$")


def root(word: str) -> str:
    """:func:`~notecite.retrieve.terms.stem`, and a consonant doubled before "-ed" or "-ing"
    made single ("shipped" and "ship", "running" and "run", "committed" and "commit"; "added"
    stays "add"), so that a claim's word forms meet the line's and the question's."""
    base = stem(word)
    if len(base) >= 4 and base != word and _DOUBLED.search(base):
        return base[:-1]
    return base


def content_terms(text: str) -> dict[str, float]:
    """Stemmed content terms of ``text`` with their weight: numbers, code spans and words with
    inner punctuation (versions, option names, paths) 2.0; capitalised names 1.5; others 1.0;
    stopwords and filler left out; the symbol of a unit spelled out ("km" for "kilometres")
    1.0."""
    terms: dict[str, float] = {}
    for code in _CODE.findall(text):
        terms[code.strip().lower()] = 2.0
    dates, text = find_dates(text)  # "June 14, 2022" and "2022-06-14" are one term
    terms.update(dict.fromkeys(dates, 2.0))
    for number in _NUMBER.findall(text):
        terms[number] = 2.0
    for match in _WORD.finditer(_CODE.sub(" ", text)):
        word = match.group(0)
        lower = word.lower()
        if lower in STOPWORDS or lower in _FILLER or len(lower) < 2 or lower.isdigit():
            continue
        if any(ch in word for ch in "._/-") or any(ch.isdigit() for ch in word):
            weight = 2.0
        elif word[0].isupper() and match.start() > 0:
            weight = 1.5
        else:
            weight = 1.0
        key = lower if weight == 2.0 else root(lower)
        terms[key] = max(terms.get(key, 0.0), weight)
    for symbol in abbreviations(text):  # "kilometres" is what a note writes "km"
        terms.setdefault(symbol, 1.0)
    return terms


def line_terms(text: str) -> set[str]:
    """Every term ``text`` holds: its content terms, each word and its stem, the words
    inside a name (``foam.preview.embedNoteType`` holds foam, preview, embed, note, type),
    and the number of a quantity written with its unit (``--timeout 10m`` holds 10, as "10
    minutes" does)."""
    found = set(content_terms(text))
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower()
        found.add(lower)
        found.add(root(lower))
        quantity = _QUANTITY.fullmatch(lower)
        if quantity:
            found.add(quantity.group(1))
        found.update(root(part) for part in re.split(r"[._/-]", lower) if part)
        if _CAMEL.search(word):
            found.update(root(part.lower()) for part in _CAMEL_PART.findall(word))
    return found


def paths_as_markers(answer: str, sources: Sequence[ContextSource]) -> str:
    """``answer`` with a source's path copied from its header ("is [N2] notes/release-0.33",
    "see notes/release-0.33.md", the header's shorter form) turned into that source's
    marker: the model pointed at it."""
    shown = shown_paths(sources)
    for source in sources:
        forms = {source.rel_path.removesuffix(".md"), shown[source.cid]}
        for bare in sorted(forms, key=len, reverse=True):
            # a one-word name ("index") is a path only with its extension: "index.md"
            suffix = r"(?:\.md)?" if re.search(r"[/.]", bare) else r"\.md"
            path = rf"(?:{re.escape(source.vault)}/)?{re.escape(bare)}{suffix}"
            # as a code span too: "run the command `dendron.topic.hooks`" leaves no empty ``
            named = rf"(?:\[{source.cid}\]\s*)?(?:`{path}`|(?<![\w/.-]){path}(?![\w/-]))"
            answer = re.sub(named, f"[{source.cid}]", answer)
    return answer


def header_copies_removed(answer: str, sources: Sequence[ContextSource]) -> str:
    """``answer`` with what follows a marker copied from a source header up to its section
    ("was [N3] changelog release.2020-07-25 (title: 0.04) | Enhancements > Initialize ...")
    left out: the marker names the source, and the header is the prompt's, not the notes'.
    The section must be a source's as its header shows it; the path and title before it may
    be another's, or misspelt."""
    headings = {header_section(s) for s in sources} - {""}
    # the longest first: a section inside another ("Description > Disabling automatic
    # colors" and "Description") is left out whole, whatever order the set holds them in
    for heading in sorted(headings, key=lambda h: (-len(h), h)):
        copied = rf"(\[N\d+\])[^\[\]\n|]{{0,160}}?\|[ \t]*{re.escape(heading)}"
        answer = re.sub(copied, r"\1", answer)
    return answer


# A source header's title field ("[N1] changelog.release.2021-03-15 (title: 0.33)") as a
# model copies it into its answer: "The release that added it was (title: 0.33)." Not one
# that follows a name without a space: code's named argument, `Button(title: "OK")`.
_TITLE_FIELD = re.compile(
    r"(\S+[ \t]+)?(?<![\w\])])\(title:[ \t]*([^()\n]*?)[ \t]*\)", re.IGNORECASE
)


def title_fields_as_text(answer: str) -> str:
    """``answer`` with a source header's ``(title: X)`` that the model copied written as the
    title itself ("was (title: 0.33)" -> "was 0.33"), or left out where the title stands
    right before it ("the release 0.64 (title: 0.64)" -> "the release 0.64")."""

    def plain(found: re.Match[str]) -> str:
        before, title = found.group(1) or "", found.group(2)
        if title and before.strip().strip("`'\"") == title:
            return before.rstrip()
        return f"{before}{title}"

    return _TITLE_FIELD.sub(plain, answer)


# "In the release [N1], you could ...": the marker stands where the release's name should be
# (and the version a model may write after it: "the release [N4] (0.104)", "(title: 0.64)")
_RELEASE_MARKER = re.compile(
    r"\b(release|version)\s+\[(N\d+)\]((?:\s*\((?:title:\s*)?v?\d+(?:\.\d+)+\))?)",
    re.IGNORECASE,
)
# "The release that brought X is [N4].": the marker is what the sentence says the release is
_RELEASE_IS_MARKER = re.compile(
    r"(\b(?:release|version)\b[^.!?\[\]\n]*?\b(?:is|was))\s+\[(N\d+)\](?=\s*[.!]?\s*(?:$|\n))",
    re.IGNORECASE,
)
# the words that name a release, not what it brought
_RELEASE_WORDS = frozenset(content_terms("release releases version versions title"))


# A heading that names a version: "## 0.88.0" of a changelog, "## v1.2 (2024-05-01)"
_VERSION_HEADING = re.compile(r"^#*\s*(v?\d+(?:\.\d+)+)\b")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+")


def _release_name(source: ContextSource | None, question: str) -> str:
    """The name of the release ``source`` tells of, when it is a release note and
    ``question`` asks when something arrived: the version heading it sits under (a section
    "## 0.88.0" of a changelog), else its title ("0.99"); "" otherwise."""
    if source is None or not asks_when_released(question):
        return ""
    if not is_release_note(source.rel_path, source.title):
        return ""
    for heading in source.heading_path.split(" > "):
        version = _VERSION_HEADING.match(heading.strip())
        if version:
            return version.group(1)
    return source.title.strip()


def _release_named(
    grounded: list[GroundedClaim], by_cid: dict[str, ContextSource], question: str
) -> list[GroundedClaim]:
    """``grounded``, where the question asks when something arrived and no claim that stands
    names a version, with the first claim a release note supports naming that release
    ("Since 2022-03-01, you can run exports from the CLI" read in the note titled 0.84 says
    "... (release 0.84)"): the date in a release note's file name is what a small model
    copies, and the version is what the question asks for."""
    standing = [g for g in grounded if g.status in ("supported", "recited")]
    if not standing or any(_VERSION.search(g.claim.body) for g in standing):
        return grounded
    for number, item in enumerate(grounded):
        if item.status not in ("supported", "recited") or item.support is None:
            continue
        if item.repaired or item.claim.is_code:  # a repair names it already; code stays
            continue
        name = _release_name(by_cid.get(item.support.cid), question)
        if not _VERSION.fullmatch(name):
            continue
        body = item.claim.body.rstrip()
        end = body[-1] if body and body[-1] in ".!?;" else ""
        named = Claim(f"{body[: len(body) - len(end)]} (release {name}){end}", item.claim.cids)
        return [*grounded[:number], replace(item, claim=named), *grounded[number + 1 :]]
    return grounded


def release_markers(answer: str, sources: Sequence[ContextSource], question: str) -> str:
    """``answer`` with a marker written in place of a release's name ("in the release [N1]")
    given that name, the title of the release note it cites ("in the release 0.99 [N1]"),
    when the question asks when something arrived.

    Which release note such a marker points to is the small model's least careful choice:
    it writes the id of the first note it read, not of the one that says what the question
    asks (:func:`_release_telling`). The marker is given the release note whose lines hold
    most of what its sentence says, and a version the model wrote after the marker that
    names the note it had picked ("the release [N4] (0.104)") goes with that choice."""
    by_cid = {s.cid: s for s in sources}
    releases = [s for s in sources if _release_name(s, question)]

    def chosen(found: re.Match[str]) -> str:
        """The release note a marker (group 2) is given, by the sentence it is in."""
        cid = found.group(2)
        if len(releases) > 1 and cid in by_cid:
            return _release_telling(_sentence_at(found), cid, releases)
        return cid

    def named(found: re.Match[str]) -> str:
        cid = chosen(found)
        name = _release_name(by_cid.get(cid), question)
        if not name:
            return found.group(0)
        own = found.group(3) or ""
        picked = _release_name(by_cid[found.group(2)], question)
        if name in own or (cid != found.group(2) and picked and picked in own):
            own = ""  # "(0.104)" says the name again, or names the note the model had picked
        return f"{found.group(1)} {name} [{cid}]{own}"

    def told(found: re.Match[str]) -> str:
        # only the marker's note is chosen: the repair of a claim that is only its marker
        # names the release with the line that tells of it ("is 0.106.0: remove ...")
        return f"{found.group(1)} [{chosen(found)}]"

    return _RELEASE_IS_MARKER.sub(told, _RELEASE_MARKER.sub(named, answer))


def _framing(source: ContextSource) -> set[str]:
    """The terms a line of ``source`` is read under: its note's title and section ("0.47" >
    "Highlights"), and the date in its file name (a daily note 2024-01-15.md, a dated
    release note)."""
    return line_terms(f"{source.title}\n{source.heading_path}") | set(
        find_dates(source.rel_path)[0]
    )


def _sentence_at(found: re.Match[str]) -> str:
    """The sentence that ``found`` is in, of the text it was found in."""
    text = found.string
    start = max(text.rfind(stop, 0, found.start()) for stop in (". ", "? ", "! ", "\n"))
    ends = [at for stop in (". ", "? ", "! ", "\n") if (at := text.find(stop, found.end())) >= 0]
    return text[start + 1 : min(ends) if ends else len(text)]


def _release_telling(sentence: str, cid: str, releases: Sequence[ContextSource]) -> str:
    """Of the release notes ``releases`` (best ranked first), the id of the one whose lines
    (read under its title and section) hold the largest share of ``sentence``'s terms
    (versions, dates and the words "release", "version" left out: they name a release, not
    what it brought); of several that hold as much, the best ranked (the retrieval's order,
    not the model's pick, which leans to the first note it read); ``cid`` when the sentence
    says nothing else."""
    said = content_terms(_MARKERS.sub(" ", _RELEASE_MARKER.sub(" ", sentence)))
    terms = {t: w for t, w in said.items() if not t[:1].isdigit() and t not in _RELEASE_WORDS}
    if not terms:
        return cid
    held: dict[str, float] = {}
    for source in releases:
        framing = _framing(source)
        held[source.cid] = max(
            (_score(terms, line_terms(text) | framing) for text, _ in _lines(source)),
            default=0.0,
        )
    best = max(held.values())
    return next(source.cid for source in releases if held[source.cid] >= best)


def _opens_code_block(text: str) -> bool:
    """Does ``text`` start with a code fence line (not a one-line code span)?"""
    return is_fence(text.lstrip().split("\n", 1)[0])


# A line that opens a JSON object or array the model wrote without fences ("{", '[{',
# '{ "key": "alt+f",'): the context shows a code block's lines without their fences, and the
# small model copies them so.
_OPENS_JSON = re.compile(r"^[{\[]\s*(?:$|[{\[\"])")
_JSON_LINES = 40  # the longest unfenced block read as one


def _json_end(lines: Sequence[str], start: int) -> int | None:
    """The index of the line that closes the JSON block opened at ``lines[start]`` (its
    brackets balance there), or None when they never do within :data:`_JSON_LINES` lines or
    a blank line comes first."""
    depth = 0
    for index in range(start, min(len(lines), start + _JSON_LINES)):
        text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', lines[index].strip())  # brackets in strings
        if not text:
            return None
        depth += text.count("{") + text.count("[") - text.count("}") - text.count("]")
        if depth <= 0:
            return index if index > start else None
    return None


def _fence_bare_json(answer: str) -> str:
    """``answer`` with each JSON block it wrote without fences put between fences, so that
    it is one claim, shown as code, and not a line of prose per key."""
    lines = answer.split("\n")
    roles = code_roles(lines)
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        end = _json_end(lines, index) if roles[index] == "text" else None
        if end is None or not _OPENS_JSON.match(line.strip()):
            out.append(line)
            index += 1
            continue
        out.extend(["```", *lines[index : end + 1], "```"])
        index = end + 1
    return "\n".join(out)


def _segments(answer: str) -> list[tuple[bool, str]]:
    """``answer`` as prose and fenced code blocks, in order: (is it code, its text). A block
    runs from its opening fence to the closing one (or the end of the answer); a JSON block
    written without fences is read as fenced (:func:`_fence_bare_json`)."""
    segments: list[tuple[bool, str]] = []
    prose: list[str] = []
    code: list[str] = []
    fence = ""
    for line in _fence_bare_json(answer).split("\n"):
        stripped = line.strip()
        if fence:
            code.append(line)
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                segments.append((True, "\n".join(code)))
                code, fence = [], ""
        elif is_fence(stripped):
            if prose:
                segments.append((False, "\n".join(prose)))
                prose = []
            fence = stripped[:3]
            code = [line]
        else:
            prose.append(line)
    if code:
        segments.append((True, "\n".join(code)))
    if prose:
        segments.append((False, "\n".join(prose)))
    return segments


def split_claims(answer: str) -> list[Claim]:
    """Sentences and list items of ``answer``, each with the ids cited right after it; a
    fenced code block is one claim."""
    claims: list[Claim] = []
    answer = _MARKERS_AFTER_STOP.sub(r"\2\1", answer)  # "x. [N1] Y" -> "x [N1]. Y"
    pieces: list[tuple[bool, str]] = []
    for code, segment in _segments(answer):
        if code:
            pieces.append((True, segment))
        else:
            pieces.extend((False, piece) for piece in split_outside_code(_CLAIM_END, segment))
    number = ""  # a list item's number, split off its text at "1. Place ..."
    for code, piece in pieces:
        if code:
            claims.append(Claim(piece.strip(), tuple(dict.fromkeys(_ONE_MARKER.findall(piece)))))
            continue
        text = piece.strip()
        if _LIST_NUMBER.fullmatch(text):
            number = text + " "
            continue
        if text and claims and not _MARKERS.sub("", text).strip(" .!?;:"):
            # markers on a line of their own belong to the claim before them
            joined = _MARKERS_AFTER_STOP.sub(r"\2\1", f"{claims[-1].text.rstrip()} {text}")
            claims[-1] = Claim(joined, tuple(dict.fromkeys(_ONE_MARKER.findall(joined))))
        elif text:
            text, number = number + text, ""
            claims.append(Claim(text, tuple(dict.fromkeys(_ONE_MARKER.findall(text)))))
    return claims


def _lines(source: ContextSource, pairs: bool = True) -> list[tuple[str, int]]:
    """The lines of a source worth quoting, split into sentences, with their note line."""
    found: list[tuple[str, int]] = []
    # a hard-wrapped sentence is read whole, with the line it starts on
    for line in unwrap(source.text.split("\n")):
        text = line.text.strip()
        stripped = text.lstrip("-*>#").strip()
        if len(stripped) < 3 or is_markup_or_link(stripped):
            continue
        cursor = line.text.find(stripped)
        for sentence in _LINE_SPLIT.split(stripped):
            if not sentence:
                continue
            at = line.text.find(sentence, cursor)
            cursor = max(cursor, at)
            offset = line.line_of(at) if at >= 0 else line.index
            found.append((sentence, source.line_start + offset if source.line_start else 0))
    if not pairs:
        return found
    # A claim may join two neighbouring sentences: each pair is a candidate line too.
    joined = [(f"{a} {b}", n) for (a, n), (b, _) in itertools.pairwise(found)]
    return found + joined


# Lines read with the line that introduces them ("add this to `dendron.yml`:").
INTRODUCED_LINES = 8


def _introduced(source: ContextSource) -> list[tuple[str, int]]:
    """Each line that ends in a colon read with the lines it introduces (a code block or a
    list, up to a blank line or the block's end), as one candidate line. A claim often says
    both in one sentence, a block flattened into a code span: "enable it with `dev:
    enableLinkCandidates: true` in `dendron.yml`" (the evidence context shows the block's
    lines without their fences)."""
    lines = source.text.split("\n")
    found: list[tuple[str, int]] = []
    for index, line in enumerate(lines):
        text = line.strip().lstrip("-*>#").strip()
        if not text.endswith(":") or is_fence(text):
            continue
        after: list[str] = []
        for body in lines[index + 1 :]:
            if not body.strip() or len(after) == INTRODUCED_LINES:
                break
            if is_fence(body):
                if after:
                    break  # the block's closing fence
                continue
            after.append(body.strip())
        if after:
            at = source.line_start + index if source.line_start else 0
            found.append((" ".join([text, *after]), at))
    return found


def _quotes_a_block(terms: dict[str, float]) -> bool:
    """Does a claim with these content terms quote a code span of several words (``dev:
    enableLinkCandidates: true``), as a block of the notes flattened into one line would be?
    Code spans weigh double (:func:`content_terms`); a number of several words is no code."""
    return any(w == 2.0 and " " in t and not t[0].isdigit() for t, w in terms.items())


_DANGLING = re.compile(
    r"\b(is|are|was|were|be|been|at|in|on|to|from|by|of|as|called|named|like|see|via)"
    r"(?:\W+(?:and|or))?\W*$|:\s*$"  # "The options are [N1] and [N2]."
    # "run the command [N1]": a bare kind word where the name should be
    r"|\b(the|this|that|a|an)\s+(command|setting|option|key|shortcut|flag|file|note|page|"
    r"section|format|syntax|value|version|release|link|tool|feature|method)\W*$",
    re.IGNORECASE,
)


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _points_only(claim: Claim) -> bool:
    """Does the claim let its marker stand where its content should be ("The version is
    [N3].")?"""
    return bool(claim.cids) and bool(_DANGLING.search(claim.body.rstrip(" .!?;")))


# What a name's words held apart are worth of the name written as it is.
PARTS_SHARE = 0.8


def _parts_in(term: str, line: set[str]) -> bool:
    """A name of several words without a digit (``foam-queries``, ``rename block``) is held
    when the line holds each of its words ("Foam Queries" in the note's title)."""
    if any(ch.isdigit() for ch in term):
        return False  # a version or a number is held only as written
    parts = [root(part) for part in re.split(r"[^\w]+|_", term) if len(part) > 1]
    return len(parts) > 1 and all(part in line for part in parts)


_TOKEN_EDGES = "`'\".,;:()[]{}"


def _command_in(term: str, text: str) -> bool:
    """A command of several words (``foam daily --path-only --date 2024-01-10``) is held by a
    line (lower case) that holds each of its words, in any order: its options may come in
    another order than the note's example gives them."""
    words = {w.strip(_TOKEN_EDGES) for w in term.split()} - {""}
    return len(words) > 1 and words <= {w.strip(_TOKEN_EDGES) for w in text.split()}


@functools.lru_cache(maxsize=4096)  # asked for each claim term against every line
def _version_forms(term: str) -> tuple[str, ...]:
    """Other ways a note writes the version ``term``: "0.103" as "0.103.0" (a heading of the
    changelog) or "v0.103", and "0.103.0" as "0.103"; nothing for a term that is no version."""
    if not _VERSION.fullmatch(term):
        return ()
    bare = term.removeprefix("v")
    forms = {bare, f"v{bare}", f"{bare}.0"}
    if bare.endswith(".0") and bare.count(".") >= 2:
        forms.add(bare.removesuffix(".0"))
    forms.discard(term)
    return tuple(forms)


def _score(claim: dict[str, float], line: set[str], text: str = "") -> float:
    """The weighted share of the claim's terms the line holds; 0 when a number or code span
    of the claim is missing from the line. A code-like term (``foam daily --create``,
    ``Alt+D``) is also held when the line's ``text`` (lower case) has it verbatim: a line of
    a code block carries no backticks to make it a term."""
    total = sum(claim.values())
    if not total:
        return 0.0
    held = 0.0
    for term, weight in claim.items():
        as_written = term in line or (text and not term.isalnum() and term in text)
        if as_written or any(form in line for form in _version_forms(term)):
            held += weight
        elif _parts_in(term, line):  # a line that writes it as written is the better one
            held += PARTS_SHARE * weight
        elif text and _command_in(term, text):
            held += weight
        elif weight == 2.0 and (term[0].isdigit() or " " in term):
            return 0.0
    return held / total


# "When did I last service the boiler?", "When was the fix shipped?": a day in the past
_WHEN_IT_HAPPENED = re.compile(r"\bwhen\s+(?:did|was|were|had)\b", re.IGNORECASE)
# "... and when is the next one due?": a question that asks ahead as well
_ASKS_AHEAD = re.compile(
    r"\b(?:next|due|will|upcoming|going\s+to|plan\w*|when\s+(?:is|are|do|does))\b",
    re.IGNORECASE,
)


def asks_about_the_past(question: str) -> bool:
    """Does ``question`` ask when something happened, and nothing ahead ("When did I last
    service the boiler?"; not "... and when is the next one due?")?"""
    return bool(_WHEN_IT_HAPPENED.search(question)) and not _ASKS_AHEAD.search(question)


def names_only_later_days(claim: str, today: date) -> bool:
    """Does ``claim`` name days, all after ``today`` ("I last serviced the boiler in January
    2027", read off "Next service due January 2027")? As the answer to a question about the
    past no line can support it: it reads a plan as what was done."""
    days = days_named(claim)
    return bool(days) and all(day > today for day in days)


class Grounder:
    """Grounds answers in their sources; ``embed`` (optional) adds a cosine of vectors;
    ``now`` tells today (the system clock when None), after which no day answers a question
    about when something happened."""

    def __init__(
        self,
        embed: Embed | None = None,
        threshold: float = SUPPORT_THRESHOLD,
        cosine_weight: float = 0.3,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._embed = embed
        self._threshold = threshold
        self._cosine_weight = cosine_weight if embed is not None else 0.0
        self._now = now or (lambda: datetime.now(UTC))

    def ground(
        self,
        answer: str,
        sources: Sequence[ContextSource],
        question: str = "",
        owned: Owners | None = None,
    ) -> Grounding:
        """Check every claim of ``answer`` against ``sources`` (see the module docstring);
        with ``owned`` (the question asks about what a note it names holds: "my manager's
        birthday"), a claim is supported only by a source of that note."""
        owner_cids = {s.cid for s in sources if owned and (s.vault, s.rel_path) in owned.notes}
        by_cid = {s.cid: s for s in sources}
        own = {s.cid: _lines(s) for s in sources}
        # a lead-in with its block is a candidate only for a claim quoting a code span of
        # several words: as a bag of words it would hold almost any claim's terms
        first_block = {cid: len(found) for cid, found in own.items()}
        lines = {s.cid: own[s.cid] + _introduced(s) for s in sources}
        marked = release_markers(
            header_copies_removed(paths_as_markers(answer, sources), sources), sources, question
        )
        claims = split_claims(title_fields_as_text(marked))
        question_terms = set(content_terms(question))
        verdicts = asks_yes_or_no(question)  # "Yes, X does Y" only restates it
        cosines = self._cosines(claims, lines)
        framing = {s.cid: _framing(s) for s in sources}
        owners = _owners(question)
        # every term a source holds: its text, its note's title and section, its path
        named = {
            s.cid: line_terms(s.text) | framing[s.cid] | line_terms(s.rel_path)
            for s in sources
            if owners
        }
        held = {
            cid: [line_terms(text) | framing[cid] for text, _ in found]
            for cid, found in lines.items()
        }
        grounded: list[GroundedClaim] = []
        past = asks_about_the_past(question)
        today = self._now().date()
        for number, said in enumerate(claims):
            claim = _without_context_lead_in(said)
            every = content_terms(claim.content)
            if past and names_only_later_days(claim.body, today):
                grounded.append(GroundedClaim(claim, "unsupported"))
                continue
            if not claim.cids and claim.body.endswith(":"):
                grounded.append(GroundedClaim(claim, "neutral"))  # a lead-in to what follows
                continue
            if _ABOUT_THE_CONTEXT.search(claim.body) or _WHERE_IT_IS.match(claim.content):
                grounded.append(GroundedClaim(claim, "unsupported"))
                continue
            if verdicts and _VERDICT.match(claim.body) and set(every) <= question_terms:
                grounded.append(GroundedClaim(claim, "unsupported"))  # no line can check it
                continue
            if _points_only(claim) or not every:
                grounded.append(self._no_content(claim, by_cid, lines, question))
                continue
            terms = {t: w for t, w in every.items() if t not in question_terms} or every
            # "Dana's birthday is June 30": only a source that names Dana can say it
            restated = owners.intersection(every)
            best: dict[str, SupportLine] = {}
            asked: dict[str, int] = {}  # the question's terms the best line of a source holds
            flattened = _quotes_a_block(every)
            for cid, found in lines.items():
                if not restated <= named.get(cid, restated):
                    continue
                if owned is not None and cid not in owner_cids:
                    continue  # another note's line says nothing of the owner the question names
                for index, (text, line) in enumerate(found):
                    if index >= first_block[cid] and not flattened:
                        continue
                    support = _score(terms, held[cid][index], text.lower())
                    score = (1 - self._cosine_weight) * support
                    score += self._cosine_weight * cosines.get((number, cid, index), 0.0)
                    if cid not in best or score > best[cid].score:
                        best[cid] = SupportLine(cid, text, line, round(score, 4))
                        asked[cid] = len(question_terms & held[cid][index])
            grounded.append(self._verdict(claim, best, _cited_after(claims, number), asked))
        speakers = _speakers(question)
        if speakers and not any(
            item.support is not None and speakers <= named[item.support.cid]
            for item in grounded
            if item.status != "unsupported"
        ):
            # "What did Dana say?" answered only from sources that never name Dana: none of
            # it says what she said, though a claim may leave her name out
            grounded = [replace(item, status="unsupported") for item in grounded]
        return self._assemble(_release_named(grounded, by_cid, question), shown_paths(sources))

    def _cosines(
        self, claims: Sequence[Claim], lines: dict[str, list[tuple[str, int]]]
    ) -> dict[tuple[int, str, int], float]:
        if self._embed is None or not claims:
            return {}
        flat = [(cid, i, text) for cid, found in lines.items() for i, (text, _) in enumerate(found)]
        if not flat:
            return {}
        vectors = self._embed([c.content for c in claims] + [text for _, _, text in flat])
        claim_vectors, line_vectors = vectors[: len(claims)], vectors[len(claims) :]
        sims = claim_vectors @ line_vectors.T
        return {
            (n, cid, i): max(0.0, float(sims[n, j]))
            for n in range(len(claims))
            for j, (cid, i, _) in enumerate(flat)
        }

    def _no_content(
        self,
        claim: Claim,
        by_cid: dict[str, ContextSource],
        lines: dict[str, list[tuple[str, int]]],
        question: str,
    ) -> GroundedClaim:
        """A claim with nothing of its own: a lead-in, or a marker standing in for content."""
        if not claim.cids or not any(c in by_cid for c in claim.cids):
            return GroundedClaim(claim, "neutral")
        if not any(ch.isalpha() for ch in claim.body):  # "}" closing a block the model wrote
            return GroundedClaim(Claim(claim.body, ()), "neutral")
        # The line each marker points to: the claim's own words first, then the question's.
        wanted = {**content_terms(question)}
        wanted.update({t: 2 * w for t, w in content_terms(claim.content).items()})
        found: list[SupportLine] = []
        for cid in dict.fromkeys(c for c in claim.cids if c in by_cid):
            scored = [
                (_score(wanted, line_terms(text), text.lower()), text, line)
                for text, line in _lines(by_cid[cid], pairs=False)
            ]
            if scored:
                score, text, line = max(scored, key=lambda s: s[0])
                found.append(SupportLine(cid, text, line, round(score, 4)))
        if not found or _POINTS_TO_A_PLACE.search(claim.body.rstrip(" .!?;")):
            # "It is described in the section of the changelog, which can be found at [N3]":
            # where the answer would be is not the answer, and no line of the source says it
            return GroundedClaim(claim, "unsupported")
        first, score = found[0], found[0].score
        if _words(first.text) in _words(claim.body):  # it quotes its line ("Use `count` when:")
            return GroundedClaim(claim, "supported", score, first, [first.cid])
        body = claim.body.rstrip(" .:")
        if len(found) > 1:  # "The options are [N1] and [N2].": "...are and" without them
            body = re.sub(r"\W+(?:and|or)$", "", body)
        name = _release_name(by_cid[first.cid], question)
        if name:  # "The release that added it is [N3]": the release note's title names it
            body = f"{body} {name}"
        quoted = "; ".join(f"{s.text.rstrip('.;')} [{s.cid}]" for s in found)
        repaired = Claim(f"{body}: {quoted}.", tuple(s.cid for s in found))
        cids = [s.cid for s in found]
        return GroundedClaim(
            repaired, "supported", score, first, cids, repaired=True, also=tuple(found[1:])
        )

    def _verdict(
        self,
        claim: Claim,
        best: dict[str, SupportLine],
        after: Sequence[str] = (),
        asked: dict[str, int] | None = None,
    ) -> GroundedClaim:
        top_any = max(best.values(), key=lambda s: s.score, default=None)
        if not claim.cids:
            # "X. Y [N2][N3]": the markers after the paragraph's last claim are meant for
            # the claims before it too; one of them that supports the claim is its source
            implied = [best[c] for c in after if c in best and best[c].score >= self._threshold]
            if implied:
                top = max(implied, key=lambda s: s.score)
                return GroundedClaim(claim, "recited", top.score, top, [s.cid for s in implied])
        cited = [best[c] for c in claim.cids if c in best]
        top_cited = max(cited, key=lambda s: s.score, default=None)
        if top_cited is not None and top_cited.score >= self._threshold:
            cids = [c for c in claim.cids if c in best and best[c].score >= self._threshold]
            if top_any is not None and top_any.score >= top_cited.score + BETTER_ELSEWHERE:
                # a source the model did not cite says it clearly better: that one is cited
                return GroundedClaim(claim, "recited", top_any.score, top_any, [top_any.cid])
            return GroundedClaim(claim, "supported", top_cited.score, top_cited, cids)
        if top_any is not None and top_any.score >= self._threshold:
            # of the sources whose lines hold the claim about as well, the one whose line
            # also says what the question asks ("owner: aiko" for "who owns it?", not a
            # line that only names Aiko), then the best-ranked one (N1 first): two notes
            # saying one thing differ by a word, not by relevance
            floor = max(self._threshold, top_any.score - RANK_MARGIN)
            top_any = min(
                (s for s in best.values() if s.score >= floor),
                key=lambda s: (-(asked or {}).get(s.cid, 0), _rank(s.cid)),
            )
            return GroundedClaim(claim, "recited", top_any.score, top_any, [top_any.cid])
        score = top_any.score if top_any else 0.0
        return GroundedClaim(claim, "unsupported", score, top_cited or top_any, [])

    def _assemble(
        self, grounded: list[GroundedClaim], names: dict[str, str] | None = None
    ) -> Grounding:
        kept: list[str] = []
        cited: list[str] = []
        support: dict[str, SupportLine] = {}
        said: set[str] = set()
        for number, item in enumerate(grounded):
            if item.status == "unsupported":
                continue
            # a sentence the answer wrote before, word for word (a small model's loop
            # within a paragraph), is read once; a list's step or a code block may well
            # come again in a second list
            words = _words(item.claim.content)
            sentence = not item.claim.is_code and not _LIST_ITEM.match(item.claim.body)
            if sentence and len(words) >= REPEAT_MIN_CHARS and words in said:
                continue
            said.add(words)
            if item.status == "neutral":
                if not _introduces_nothing(grounded, number):
                    kept.append(item.claim.text)
                continue
            if item.repaired:  # a repair wrote each quoted line with its own marker
                kept.append(item.claim.text)
            elif item.claim.is_code:  # its markers after the block: a fence closes alone
                kept.append("\n".join([item.claim.body, "".join(f"[{c}]" for c in item.cids)]))
            else:
                kept.append(_cite(_named(item.claim, names or {}), item.cids))
            cited.extend(item.cids)
            lines = (item.support, *item.also) if item.support is not None else item.also
            for line in lines:
                current = support.get(line.cid)
                if current is None or line.score > current.score:
                    support[line.cid] = line
        if not cited:  # no claim is backed by the notes: nothing of the answer stands
            return Grounding("", tuple(grounded), (), {})
        return Grounding(_join(kept), tuple(grounded), tuple(dict.fromkeys(cited)), support)


# A name the question asks what they said ("What did Dana say about retention?", "according
# to Ines"): a claim that restates it says something of it too.
_SPEAKER = re.compile(
    r"\b(?:did|does|do|has|had|would|will)\s+([A-Z][a-z]+)\s+(?:say|think|suggest|propose|"
    r"want|recommend|mention|ask|decide|write|feel|agree|argue|report|promise)\b"
    r"|\b[Aa]ccording\s+to\s+([A-Z][a-z]+)\b"
)


def _owners(question: str) -> set[str]:
    """The terms of the names ``question`` writes as owners ("Dana's birthday": dana) or
    asks what they said ("What did Dana say about retention?": dana). A claim that restates
    one says something of it, and a line of a source that never names it cannot say that
    (Leila's note's "Birthday June 30" is not Dana's birthday; Ines's points at a meeting
    Dana was not at are not what Dana said): the question's terms are otherwise left out of
    a claim's score."""
    return {root(name) for name in possessive_names(question)} | _speakers(question)


def _speakers(question: str) -> set[str]:
    """The terms of the names ``question`` asks what they said ("What did Dana say about
    retention?", "according to Ines"): the answer is what they said, so a source that never
    names them cannot hold any of it."""
    return {root((a or b).lower()) for a, b in _SPEAKER.findall(question)}


def _rank(cid: str) -> int:
    """The retrieval rank a source id stands for (``N3`` -> 3; any other id last)."""
    return int(cid[1:]) if cid[1:].isdigit() else 1 << 30


def _cited_after(claims: Sequence[Claim], number: int) -> tuple[str, ...]:
    """The markers of the first claim after claim ``number`` that has any ("First. Second
    [N2][N3]": they may be meant for the first claim too)."""
    for claim in claims[number + 1 :]:
        if claim.cids:
            return claim.cids
    return ()


_LIST_LIKE = re.compile(r"^(?:\d{1,3}[.)]\s|[-*+]\s|```|~~~)")


def _introduces_nothing(grounded: Sequence[GroundedClaim], number: int) -> bool:
    """Is claim ``number`` a lead-in ("follow these steps:") whose list was removed: the
    claim after it is unsupported, and the next one kept, if any, is no list item?"""
    lead_in = grounded[number].claim.body.rstrip()
    if not lead_in.endswith(":"):
        return False
    after = grounded[number + 1 :]
    if after and after[0].status != "unsupported":
        return False
    following = next((g for g in after if g.status != "unsupported"), None)
    return following is None or not _LIST_LIKE.match(following.claim.text)


# A marker the answer uses as a noun, inside its sentence: "the changelog from [N2] and
# [N3], which both mention ..." (moved to the claim's end, it would leave "from and,").
_MARKER_AS_NOUN = re.compile(
    r"\b(?:from|in|see|by|at|of|between|with|under)\s"
    r"\[N\d+\](?:\s*(?:,|and|or)\s*\[N\d+\])*(?=\s*,?\s*[^\W\d_])",
    re.IGNORECASE,
)


def _named(claim: Claim, names: dict[str, str]) -> str:
    """The claim's body, with a marker it uses as a noun inside its sentence written as the
    name of the source it stands for (``changelog.release.2022-07-12``): its other markers
    go to its end (:func:`_cite`)."""

    def name(found: re.Match[str]) -> str:
        text = found.group(0)
        for cid in _ONE_MARKER.findall(text):
            if cid not in names:
                return text
            text = text.replace(f"[{cid}]", f"`{names[cid]}`", 1)
        return text

    return Claim(_MARKER_AS_NOUN.sub(name, claim.text), claim.cids).body


def _cite(body: str, cids: Sequence[str]) -> str:
    """``body`` with its markers before its closing punctuation: "x [N1]."."""
    markers = "".join(f" [{c}]" for c in cids)
    if body and body[-1] in ".!?;:":
        return body[:-1].rstrip() + markers + body[-1]
    return body + markers


def _renumbered(claims: Sequence[str]) -> list[str]:
    """``claims`` with the numbers of their list items made to run on where a removed
    claim left a gap ("2. ... 3. ..." after step 1 was removed reads "1. ... 2. ...");
    an item numbered 1 starts a new list."""
    out: list[str] = []
    shown = 0  # the number the last item is shown with (0: no item yet)
    for claim in claims:
        found = _LIST_ITEM.match(claim)
        if found is None:
            out.append(claim)
            continue
        number = int(found.group(1))
        shown = 1 if number == 1 or not shown else min(number, shown + 1)
        out.append(f"{shown}{found.group(2)}{claim[found.end() :]}")
    return out


def _join(claims: Sequence[str]) -> str:
    text = ""
    after_code = False
    for claim in _renumbered(claims):
        code = _opens_code_block(claim)
        if not text:
            text = claim
        elif (
            text.endswith(":")
            or code
            or after_code
            or claim.startswith(("-", "*"))
            or re.match(r"\d+[.)]\s", claim)
        ):
            text += "\n" + claim
        else:
            text += " " + claim
        after_code = code
    return text.strip()


def locate(lines: Sequence[str], quote: str, start: int, end: int) -> int | None:
    """The 1-based line of ``lines`` within ``start``-``end`` that holds ``quote`` (the text
    of a chunk drops blank lines, so its own line numbers are only an estimate)."""
    wanted = " ".join(quote.split())[:60].lower()
    for number in range(max(1, start), min(len(lines), end) + 1):
        line = " ".join(lines[number - 1].split()).lower()
        # a hard-wrapped quote goes on in the next lines; it must start on this one
        following = " ".join(" ".join(lines[number : number + 3]).split()).lower()
        at = f"{line} {following}".find(wanted) if wanted else -1
        if 0 <= at < len(line):
            return number
    return None
