"""The parts of a question that asks two things at once.

"How do I create today's daily note from the terminal, and what is the editor shortcut for
the same thing?" asks for two facts that two notes hold. One search with the whole question
finds the note of the part it matches best and may rank the other note below what the
context keeps. Asked part by part, each part's own best note is found.

A question is cut into parts where it joins two asking clauses:

- ", and" or "and" followed by a word that asks (what, which, how, where, when, who, why,
  since/from/in/for which ..., is/are/do/does/can ...): "... from the terminal, and what is
  the editor shortcut ...?", "which link setting and which rendering library do I need?"
  (but not an "and what" with no comma after a "what" inside the clause: "the command that
  shows what a note points to and what points back at it");
- "; " before such a word, and a second question mark ("Which app is that? And what ...");
- "both A and B" at the end of the asking clause: "..., both inside VS Code and with the
  CLI?" asks the clause once with A and once with B.

A question whose one asking clause asks for several things ("which two settings", "those",
"which options are involved") that a statement before it names is cut at the statement's
join instead (", and", "; ", "and separately", else "and"), each thing with the clause:
"For task notes I want 'shipped' shown as an emoji and priority H to read 'high'. Which two
settings do that?".

Sentences and clauses that ask nothing ("I want my published notes to show the graph.",
"I use callouts in Obsidian; do they ...?") and a lead-in before the first asking word ("To
publish on GitHub Pages with working math formulas,", "Capturing from an iPhone:") say what
the parts are about: each part is asked with them.
A question with one part (most questions) is left as it is.
"""

from __future__ import annotations

import re

from notecite.retrieve.terms import query_terms

_ASKING = (
    r"(?:what|which|how|where|when|who|whom|whose|why|"
    r"(?:since|from|in|on|for|at|by|with|to|under|into|of|about|after|before|during|within|"
    r"through|across|over|between|among)\s+(?:which|what|whom)|"
    r"is|are|was|were|do|does|did|can|could|will|would|should|has|have|may|must)\b"
)
# where one asking clause ends and the next begins
_JOIN = re.compile(rf"(?:\s*[,;]\s*|\s+)(?:and|or|but)\s+(?={_ASKING})|\s*;\s+(?={_ASKING})", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_OPENING_JOIN = re.compile(r"^(?:and|but|or|also)\s+", re.I)  # "... ? And what ...?"
_ASKS = re.compile(_ASKING, re.I)
_EMBEDDED = re.compile(r"\s(?:what|which|how|where|when|who)\b", re.I)  # a wh-word after the start
_LEAD_IN = re.compile(rf"^(?P<lead>.+?[,:])\s+(?P<rest>{_ASKING}.*)$", re.I | re.S)
_BOTH = re.compile(
    r"^(?P<stem>.+?)\s*,?\s+both\s+(?P<a>.+?)\s+and\s+(?P<b>[^,;]+?)(?P<end>[?.!]*)$"
)
MIN_TERMS = 2  # a part has at least this many content terms of its own, or it is no part
# an asking clause that asks for several things: "which two settings", "both", "those",
# "which options are involved"
_ASKS_FOR_SEVERAL = re.compile(
    r"\b(?:two|three|both|those|these)\b|"
    r"\b(?:which|what)\s+(?!(?:does|has|is|was|goes|happens|means|makes|works)\b)"
    r"[a-z]{3,}(?<![su])s\b",
    re.I,
)
# where a statement joins two things: ", and", "; ", "and separately"
_STATEMENT_JOIN = re.compile(r"\s*(?:,?\s+and\s+separately|,\s*and|;)\s+", re.I)
_AND = re.compile(r"\s+and\s+", re.I)


def question_parts(question: str) -> list[str]:
    """The parts of ``question`` (each with the question's lead-in), or ``[question]`` when
    it asks one thing."""
    sentences = [s.strip() for s in _SENTENCE.split(question.strip()) if s.strip()]
    context = [s for s in sentences if not s.endswith("?")]
    asking = [s for s in sentences if s.endswith("?")]
    if not asking:
        return [question]
    clauses: list[str] = []
    for sentence in asking:
        lead, rest = _lead_in(_OPENING_JOIN.sub("", sentence))
        if lead:
            context.append(lead)
        for clause in _clauses(rest):
            # "I use callouts in Obsidian; do they render in Foam?": a statement says what
            # the clauses after it are about
            (clauses if _ASKS.match(clause) else context).append(clause)
    parts = [c for c in clauses if len(query_terms(c)) >= MIN_TERMS]
    if len(parts) < 2:
        return _said_parts(context, clauses) or [question]
    before = " ".join(context)
    return [f"{before} {part}".strip() for part in parts]


def _said_parts(context: list[str], clauses: list[str]) -> list[str]:
    """The parts of a question whose one asking clause asks for several things that a
    statement before it names ("For task notes I want 'shipped' to show as an emoji and
    priority H to read 'high'. Which two settings do that?"): each thing the statement joins
    with the clause; none when the clause asks for one thing or no statement joins two."""
    if len(clauses) != 1 or not _ASKS_FOR_SEVERAL.search(clauses[0]):
        return []
    for at in range(len(context) - 1, -1, -1):
        statement = context[at].strip().rstrip(".:;,")
        pieces = _STATEMENT_JOIN.split(statement)
        if len(pieces) != 2:
            pieces = _AND.split(statement)
        pieces = [p.strip(" ,") for p in pieces]
        if len(pieces) == 2 and all(len(query_terms(p)) >= MIN_TERMS for p in pieces):
            before, after = context[:at], context[at + 1 :]
            return [" ".join([*before, f"{piece}.", *after, clauses[0]]) for piece in pieces]
    return []


def _lead_in(sentence: str) -> tuple[str, str]:
    """A lead-in before the sentence's first asking word, and the rest."""
    if _ASKS.match(sentence):
        return "", sentence
    found = _LEAD_IN.match(sentence)
    if found is None:
        return "", sentence
    return found.group("lead"), found.group("rest")


def _clauses(sentence: str) -> list[str]:
    """The asking clauses of one sentence."""
    pieces: list[str] = []
    start = 0
    for join in _JOIN.finditer(sentence):
        before = sentence[start : join.start()]
        # "... the command that shows what a note points to and what points back at it":
        # an "and what" with no comma goes on from a "what" inside the clause, not a new one
        if not re.search(r"[,;]", join.group(0)) and _EMBEDDED.search(before):
            continue
        pieces.append(before.strip())
        start = join.end()
    pieces.append(sentence[start:].strip())
    out: list[str] = []
    for piece in filter(None, pieces):
        both = _BOTH.match(piece)
        if both is None:
            out.append(piece)
            continue
        stem, end = both.group("stem").rstrip(" ,"), both.group("end") or "?"
        out.extend(f"{stem} {both.group(side)}{end}" for side in ("a", "b"))
    return out
