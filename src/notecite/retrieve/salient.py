"""Salient terms of a question: the names, products, commands, options, versions and code
spans whose absence from the notes means the notes cannot answer it.

A near miss ("Does Foam sync with Logseq?") is on topic, so retrieval finds close notes and a
small model answers from them with confidence. The cheap, strong sign is a salient term that
occurs nowhere in the searched vaults: the full-text index answers that in a few milliseconds
(:meth:`notecite.store.base.Store.mentions`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.retrieve.english import known
from notecite.retrieve.terms import STOPWORDS
from notecite.retrieve.typos import english_readings

_CODE = re.compile(r"`([^`\n]{2,80})`")
_QUOTED = re.compile(r"[\"\u201c]([^\"\u201d\n]{2,60})[\"\u201d]")
_TOKEN = re.compile(r"(?<![\w@-])(?:--?|[@#])?[^\W_][\w]*(?:[./:_+-][\w]+)*[+#]*", re.UNICODE)
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)", re.IGNORECASE)
_VERSION = re.compile(r"[vV]?(\d+(?:\.\d+)+)")
# A time of day ("1:30", "14:00", "9pm", "7:45am"): a moment the asker names ("restore it to
# 1:30 last night"), which the notes need not hold, like a year or a count.
_TIME_OF_DAY = re.compile(
    r"\d{1,2}(?::[0-5]\d){1,2}(?:[ap]\.?m\.?)?|\d{1,2}[ap]\.?m\.?", re.IGNORECASE
)
# A range of versions ("0.5x", "0.9.x", "v2.x"): the notes write its releases one by one
# ("0.52"), never the range, so it is no name they must hold.
_VERSION_RANGE = re.compile(r"[vV]?\d+(?:\.\d+)*\.?[xX]")
# A site's address names it by its name and a domain ending: notes about VS Code in the
# browser or Obsidian say "VS Code" and "Obsidian", not "vscode.dev" and "obsidian.md".
_SITE = re.compile(r"([A-Za-z][\w-]*)\.(?:com|org|net|io|dev|app|md|so|co|ai|sh|me|site)")
# A link or embed written in the question ("![[photo.png|300]]", "[[note#Heading]]",
# "[x](diagram.svg)") names the asker's own note or file, or shows the syntax: the notes need
# not hold it to answer.
_LINK = re.compile(r"!?\[\[[^\]\n]*\]\]|\]\([^)\s]*\)")
# A name the asker gives their own note, file, folder or tag ("create a note called
# `phoenix`", "a folder named Archive2024", "a new note titled Launch Plan", "rename #todo to
# #someday"): theirs to choose, so the notes need not hold it. (A "plugin called Dataview"
# stays a name the notes must hold: whether it exists is what a near miss asks.)
_SPELLED_NAME = (
    r"`[^`\n]+`|[\"\u201c][^\"\u201d\n]+[\"\u201d]|(?<!\w)['\u2018][^'\u2019\n]{2,60}['\u2019](?!\w)"
    r"|\[\[[^\]\n]+\]\]|[#@][\w./:+-]+"
)
_NAME = rf"{_SPELLED_NAME}|[^\W_][\w./:+-]*(?:\s+[A-Z][\w./:+-]*)*"
# after "rename ... to", only what is written as a name: "rename it to match the title" is
# no name, "rename it to Archive-2024" or "to `old/notes`" is
_NAME_LIKE = rf"{_SPELLED_NAME}|[A-Z][\w./:+-]*(?:\s+[A-Z][\w./:+-]*)*|\w*[\d._/-]\w[\w./:+-]*"
_THINGS = (
    r"(?i:notes?|files?|folders?|director(?:y|ies)|sub-?folders?|tags?|pages?|templates?|"
    r"sections?|headings?|workspaces?|vaults?|journals?|hierarch(?:y|ies)|schemas?|"
    r"aliases|alias|snippets?|views?|documents?|names?|titles?)"
)
_OWN_NAME = re.compile(
    rf"\b{_THINGS}\s+(?i:called|named|titled|entitled)\s+({_NAME})"
    rf"|\b(?i:renam\w*)\b[^?!\n]*?\b(?i:to|as)\s+({_NAME_LIKE})"
)
# A name written right after "my / our / a / an [word] <thing>" ("link my note
# meeting-2024", "a folder recipes/cooking", "my vault WorkNotes") is the asker's own when no
# note holds it (the retrieval stage looks it up): a name the notes do hold ("a file
# `settings.json`") is the product's, and stays. After "a" / "an" only what is written as a
# name counts (a code span, a quoted phrase, a #tag, a word with a digit, dot, slash or dash):
# "a note Foam made" keeps "Foam".
_NAME_SPELLED_AS_NAME = rf"{_SPELLED_NAME}|\w*[\d._/-]\w[\w./:+-]*"
# So is an example of one the asker writes after "like", "such as" or "e.g." ("notes named
# like dendron.foo", "a note three levels down like project.alpha.notes"), written as a
# name; "notes from an app like Logseq" keeps "Logseq".
_MAYBE_OWN_NAME = re.compile(
    rf"\b(?i:my|our)\s+(?:(?i:[a-z][\w-]*)\s+)??{_THINGS}\s+({_NAME_LIKE})"
    rf"|\b(?i:an?)\s+(?:(?i:[a-z][\w-]*)\s+)??{_THINGS}\s+({_NAME_SPELLED_AS_NAME})"
    rf"|\b{_THINGS}\b[^.?!,;:\n]{{0,40}}?\b(?i:like|such\s+as|e\.g\.)\s+"
    rf"({_NAME_SPELLED_AS_NAME})"
)
# A name in a question written without capitals: a lowercase word this long that English
# does not know ("logseq", "syncthing"); shorter ones are as often a typo ("mkae").
NAME_LETTERS = 5
_LOWER_WORD = re.compile(rf"(?<![\w./:#@`'-])[a-z]{{{NAME_LETTERS},}}(?![\w/:`'-]|\.\w)")
# "I" ("I'm", "I've"): capitalised even by many who write nothing else so.
_PRONOUN_I = re.compile(r"\bI\b")
_CAPITAL = re.compile(r"[A-Z]")

# Capitalised words that start questions or are common in them, never names.
_COMMON_TEXT = """
what when where which who whom whose why how is are was were do does did can could
should would will shall may might must have has had the a an i my our your in on at for
from with about into if please tell show list give explain describe compare yes no ok hi
hello thanks is there any anything something
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
monday tuesday wednesday thursday friday saturday sunday
"""
# (A month or a weekday is part of a date, and notes often write dates as 2021-06-21: "the
# June 2021 release" is not a name the notes must hold.)
_COMMON = frozenset(_COMMON_TEXT.split())


# The share of a question's salient terms that, absent from every note, settles it: "Does
# Foam sync with Logseq?" (one of two). Below it the absent term is a detail of a question the
# notes may well answer ("Capturing from an iPhone: where do the Drafts action and the
# Shortcuts recipe put new notes?", one of five): the model is told the notes don't mention it.
SETTLING_SHARE = 1 / 3


@dataclass(frozen=True)
class MissingTerms:
    """Salient terms of a question that the notes lack.

    Attributes:
        salient: every salient term of the question.
        not_in_vaults: terms that occur in no chunk of the searched vaults.
        not_in_context: terms that occur in the vaults but in none of the kept chunks.
    """

    salient: tuple[str, ...] = ()
    not_in_vaults: tuple[str, ...] = ()
    not_in_context: tuple[str, ...] = ()
    names: tuple[tuple[str, ...], ...] = ()
    """The salient terms as the names they write, adjacent ones together ("VS Code");
    empty: each term is a name of its own."""

    @property
    def settled(self) -> bool:
        """Do the terms no note holds settle the question ("your notes don't mention X"):
        are the names they belong to at least :data:`SETTLING_SHARE` of its names?"""
        if not self.not_in_vaults:
            return False
        names = self.names or tuple((t,) for t in self.salient)
        absent = sum(1 for name in names if any(t in self.not_in_vaults for t in name))
        return absent >= SETTLING_SHARE * max(1, len(names))

    @property
    def absent_names(self) -> tuple[str, ...]:
        """The question's names that hold a term no note holds, as the question writes them
        ("Decap CMS", not "CMS" or "Decap"): what an answer says the notes don't mention."""
        names = self.names or tuple((t,) for t in self.salient)
        absent = [" ".join(n) for n in names if any(t in self.not_in_vaults for t in n)]
        held = {t for n in names for t in n}
        return (*absent, *(t for t in self.not_in_vaults if t not in held))

    @property
    def unheld(self) -> tuple[str, ...]:
        """The salient terms the kept chunks do not hold, in the vaults or not: what the
        model is told the notes don't mention."""
        return self.not_in_vaults + self.not_in_context


def own_names(question: str) -> list[str]:
    """The names ``question`` gives the asker's own note, file, folder or tag
    (:data:`_OWN_NAME`): "`phoenix`" in "How do I create a note called `phoenix`?"."""
    return [name for m in _OWN_NAME.finditer(question) if (name := _own_name(m))]


def maybe_own_names(question: str) -> list[str]:
    """Names written right after "my / a <thing>" (:data:`_MAYBE_OWN_NAME`): the asker's
    own when no note holds them ("meeting-2024" in "How do I link my note meeting-2024?")."""
    return [name for m in _MAYBE_OWN_NAME.finditer(question) if (name := _own_name(m))]


def without_names(question: str, names: Sequence[str]) -> str:
    """``question`` without every mention of ``names`` (as a whole word: "plan-b" leaves
    "plan-b-notes" as it is)."""
    for name in names:
        question = re.sub(rf"(?<![\w#@/-]){re.escape(name)}(?![\w/-])", "", question)
    return question


def without_own_names(question: str) -> str:
    """``question`` without the names it gives the asker's own things (:func:`own_names`),
    wherever it writes them ("renaming #todo to #tasks, but #tasks already exists"): what
    the notes must speak of to answer it."""

    def cut(found: re.Match[str]) -> str:
        if not _own_name(found):
            return found.group(0)
        return found.group(0)[: found.start(found.lastindex or 0) - found.start()]

    return without_names(_OWN_NAME.sub(cut, question), own_names(question))


def _own_name(found: re.Match[str]) -> str:
    """The name of an :data:`_OWN_NAME` match; "" for a pronoun ("renamed it to it")."""
    name = next((group for group in found.groups() if group), "").rstrip(".:")
    return "" if name.lower() in STOPWORDS else name


def salient_terms(question: str, *, names_in_lowercase: bool = True) -> list[str]:
    """Names, products, commands, options, versions and code spans of ``question``.

    A term is a code span or a quoted phrase; a token with inner punctuation or digits
    (``v0.19``, ``foam.graph.style``, ``--force``, ``C++``); a CamelCase or all-caps token
    (``GitHub``, ``PDF``); or a capitalised word that does not start the question or a
    sentence (``Logseq`` in "Can Foam import from Logseq?"). In a question written without
    capitals (:func:`writes_no_capitals`), a word English does not know is one too
    (``logseq`` in "does foam sync with logseq", :func:`lowercase_names`). What a link or an
    embed in the question points to is none (:data:`_LINK`), nor a name the asker gives their
    own note, folder or tag (:func:`own_names`).

    ``names_in_lowercase=False`` leaves out the lowercase names: the terms by how they are
    written alone (a misspelt word is no name, and is read first).
    """
    question = without_own_names(question)
    found: list[str] = []
    for pattern in (_CODE, _QUOTED):
        found.extend(m.group(1).strip() for m in pattern.finditer(question))
    plain = _LINK.sub(" ", _QUOTED.sub(" ", _CODE.sub(" ", question)))
    for match in _TOKEN.finditer(plain):
        token = match.group(0).rstrip(".:-")
        lower = token.lower()
        if len(token) < 2 or lower in STOPWORDS or lower in _COMMON:
            continue
        if not _is_salient(token, plain, match.start()):
            continue
        parts = token.split("-")
        if len(parts) > 2 and any(part.lower() in STOPWORDS for part in parts):
            # a phrase written as one word ("Word-to-Markdown"): the notes may say it in
            # other words, so its names count one by one
            found.extend(p for p in parts if p.lower() not in STOPWORDS and p[:1].isupper())
        else:
            found.append(token)
    if names_in_lowercase and writes_no_capitals(plain):
        found.extend(lowercase_names(plain))
    return list(dict.fromkeys(found))


def writes_no_capitals(question: str) -> bool:
    """Is ``question`` written without capitals, "I" aside ("does foam sync with logseq",
    "can I use foam with logseq")? Then its names are in lowercase too, and capitals cannot
    tell them from other words. One who starts a sentence with a capital writes a name with
    one too: there a lowercase word English does not know is a misspelling or a term of art
    as often as a name (SQuAD 2.0's answerable "What kind of measurements define
    accelerlations?", a SciFact claim's "glycometabolic")."""
    return not _CAPITAL.search(_PRONOUN_I.sub(" ", question))


def lowercase_names(question: str) -> list[str]:
    """The plain lowercase words of ``question`` (at least :data:`NAME_LETTERS` letters, no
    stopwords) that English does not know: in a question written without capitals, its
    names ("logseq", "syncthing", "dendron"). Words English knows ("notion", "obsidian")
    are never names here, nor are its words as a typist misspells them ("unconnceted": a
    misspelling the notes could not read, since they never write "unconnected", is no name
    the notes lack)."""
    words = [
        w
        for w in dict.fromkeys(_LOWER_WORD.findall(question))
        if w not in STOPWORDS and w not in _COMMON
    ]
    if not words:
        return []
    english = known(words)
    return [w for w in words if w not in english and not english_readings(w)]


def name_groups(question: str, terms: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """``terms`` (salient terms of ``question``, in order) grouped into the names they
    write: terms with only spaces between them in the question are one name ("VS Code",
    "GitHub Actions"), so that a name of two words does not count twice."""
    groups: list[list[str]] = []
    end = -1
    for term in terms:
        start = question.find(term, max(end, 0))
        if start < 0:
            groups.append([term])  # a term the question holds only in another form
            continue
        if groups and end >= 0 and not question[end:start].strip():
            groups[-1].append(term)
        else:
            groups.append([term])
        end = start + len(term)
    return tuple(tuple(g) for g in groups)


def _is_salient(token: str, text: str, start: int) -> bool:
    if _ORDINAL.fullmatch(token):
        return False  # "the 4th ruler": notes may write "fourth"
    if _VERSION_RANGE.fullmatch(token):
        return False  # "a really old Dendron (0.5x)": notes write "0.52"
    if _TIME_OF_DAY.fullmatch(token):
        return False  # "as it was at 1:30 last night": the asker's moment
    if any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token):
        return True  # v0.19, mp3, 2fa
    if token.isdigit():
        return len(token) >= 3 and not (1900 <= int(token) <= 2100)  # not a year or a count
    if any(ch in token for ch in "./:_+#@"):
        return not all(len(part) <= 1 for part in re.split(r"[./:]", token))  # not "e.g"
    if token.startswith("-"):
        return True  # a command-line option
    if "-" in token:
        return any(ch.isupper() for ch in token)  # "Foam-Lite", not "follow-up"
    if _CAMEL.search(token) or (token.isupper() and len(token) >= 2):
        return True
    if token[0].isupper():
        before = text[:start].rstrip()
        return bool(before) and before[-1] not in ".!?:\n\"'(" and not before.endswith("``")
    return False


def variants(term: str) -> list[str]:
    """Ways the notes may write ``term``: as is, and with CamelCase or dotted parts apart
    (``VSCode`` -> ``VS Code``, ``filenameFormat`` -> ``filename Format``); a version with
    and without its ``v``; a site's address (``vscode.dev``) also by its name (``vscode``)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", term)
    found = [term, spaced]
    head, _, rest = term.partition("-")
    if head and rest and rest.islower():
        found.append(head)  # "Vercel-hosted": the name is "Vercel"
    version = _VERSION.fullmatch(term)
    if version:  # "v0.55" may be written "0.55", and "0.55" "v0.55"
        found.append(version.group(1) if term[0] in "vV" else f"v{term}")
    site = _SITE.fullmatch(term)
    if site:
        found.extend(variants(site.group(1)))
    found.extend(name_forms(term))
    found.extend(_SAME_PLATFORM.get(term.lower(), ()))
    return list(dict.fromkeys(found))


# A device and the system it runs are one platform to a question: notes about setting
# something up "on your iOS device" answer "Can I do it from my iPhone?". "Mac" is looked
# up in its other forms but is no form of another: the context is searched for a form where
# a word starts, and "mac" starts "machine".
_SAME_PLATFORM = {
    "iphone": ("iOS",),
    "ipad": ("iPadOS", "iOS"),
    "ios": ("iPhone", "iPad"),
    "ipados": ("iPad", "iOS"),
    "mac": ("macOS", "Mac OS", "OS X"),
    "macbook": ("macOS", "Mac OS", "OS X"),
    "imac": ("macOS", "Mac OS", "OS X"),
    "macos": ("MacBook", "iMac", "Mac OS", "OS X"),
    "apple watch": ("watchOS",),
    "watchos": ("Apple Watch",),
}


_NAME_ENDINGS = ("ian", "ese", "an", "n")  # Palestinian, Japanese, Korean, American


def name_forms(term: str) -> list[str]:
    """The name ``term`` as the adjective made of it, and the name an adjective is made of
    ("Palestine" <-> "Palestinian", "Canada" <-> "Canadian", "Korea" <-> "Korean", "Japan"
    <-> "Japanese", "Italy" <-> "Italian"): a question about "the Canadian office" is about
    notes that say "Canada". Only for one capitalised word of four letters or more, in lower
    case after its capital ("VSCode" is no such name)."""
    if not (term.isalpha() and term[0].isupper() and term[1:].islower() and len(term) >= 4):
        return []
    if term[-1] in "aeiouy":  # Korea, America, Italy, Palestine, China
        bare = term[:-1]
        forms = [term + "n", bare + "ian", bare + "ese"]
    else:  # Brazil, Japan
        forms = [term + "ian", term + "ese"]
    for ending in _NAME_ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= 4:
            base = term[: -len(ending)]
            forms.extend([base + "a", base + "e", base + "y"])
            if len(base) >= 5:  # "Japan"; not "Germ" of "German"
                forms.append(base)
            break
    return [form for form in forms if form != term]


def _said(terms: tuple[str, ...]) -> str:
    """Up to three of ``terms``, quoted: '"Logseq" or "Roam"'."""
    return " or ".join(f'"{t}"' for t in terms[:3])


def not_mentioned_answer(terms: tuple[str, ...]) -> str:
    """The plain answer for salient terms the notes never mention."""
    return f"Your notes don't mention {_said(terms)}. The closest notes are listed below."


def nothing_found_answer(fallback: str, terms: tuple[str, ...]) -> str:
    """``fallback`` (nothing relevant was found), followed by the question's names that no
    note mentions, where there are any: '...: they don't mention "Piranesi".'"""
    if not terms:
        return fallback
    return f"{fallback.rstrip('.')}: they don't mention {_said(terms)}."
