"""The QA data file of `notecite eval qa`: one question a line, read and checked.

A line is a JSON object::

    {"id": "foam-fact-01", "question": "...", "kind": "fact", "vault": "foam",
     "folders": ["user/features"], "gold_files": ["user/features/daily-notes.md"],
     "gold_headings": ["Daily Notes > Configuration"], "must_contain": ["journals"],
     "answerable": true, "split": "dev", "absent_terms": ["kanban"]}

``must_contain`` lists what a right answer holds (case-insensitive): each entry is a phrase,
or a list of alternative phrases of which one is enough. ``absent_terms`` (near-miss questions)
are the key terms asked about, which occur nowhere in the vault.

The older, shorter lines ``{"question", "answerable", "gold_files", "must_contain"}`` still
read: they get the id ``line-<n>``, the kind ``answerable`` or ``unanswerable``, no vault (the
command's ``--vault`` answers them) and no split.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from notecite.errors import ConfigError, ParseError
from notecite.ingest.parse import parse_file

ANSWERABLE_KINDS = ("fact", "how-to", "multi-note", "time", "folder-scoped")
UNANSWERABLE_KINDS = ("near-miss", "off-topic")
KINDS = (*ANSWERABLE_KINDS, *UNANSWERABLE_KINDS)
SPLITS = ("dev", "test")
DEV_SHARE = 0.4
COPY_WORDS = 8  # a question may not copy this many consecutive words from a gold note

Requirement = tuple[str, ...]  # alternatives: one of them is enough


@dataclass(frozen=True)
class QaItem:
    """One question with what a right answer looks like."""

    question: str
    answerable: bool
    gold_files: tuple[str, ...] = ()
    must_contain: tuple[Requirement, ...] = ()
    id: str = ""
    kind: str = ""
    vault: str | None = None
    folders: tuple[str, ...] = ()
    gold_headings: tuple[str, ...] = ()
    absent_terms: tuple[str, ...] = ()
    split: str | None = None

    @property
    def kind_or_default(self) -> str:
        """The kind, or ``answerable``/``unanswerable`` for a line that names none."""
        return self.kind or ("answerable" if self.answerable else "unanswerable")


def load_qa(path: Path) -> list[QaItem]:
    """Read the JSONL file; a malformed line is a ConfigError naming its number."""
    if not path.is_file():
        raise ConfigError(f"QA data file not found: {path}")
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(_item(json.loads(line), number))
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{path}:{number}: not a QA line ({exc})") from exc
    problems = check_set(items)
    if problems:
        raise ConfigError(f"{path}: " + "; ".join(problems))
    return items


def _item(raw: dict[str, Any], number: int) -> QaItem:
    if not isinstance(raw, dict):
        raise TypeError("a line must be a JSON object")
    kind = str(raw.get("kind") or "")
    if kind and kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    split = raw.get("split")
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; splits: {', '.join(SPLITS)}")
    answerable = raw["answerable"]
    if not isinstance(answerable, bool):
        raise TypeError("answerable must be true or false")
    return QaItem(
        question=str(raw["question"]),
        answerable=answerable,
        gold_files=_strings(raw.get("gold_files")),
        must_contain=tuple(_requirement(m) for m in raw.get("must_contain") or ()),
        id=str(raw.get("id") or f"line-{number}"),
        kind=kind,
        vault=str(raw["vault"]) if raw.get("vault") else None,
        folders=_strings(raw.get("folders")),
        gold_headings=_strings(raw.get("gold_headings")),
        absent_terms=_strings(raw.get("absent_terms")),
        split=split,
    )


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, list):
        raise TypeError(f"expected a list of strings, got {value!r}")
    return tuple(str(v) for v in value)


def _requirement(value: Any) -> Requirement:
    if isinstance(value, str):
        return (value,)
    alternatives = _strings(value)
    if not alternatives:
        raise ValueError("an empty list of alternatives in must_contain")
    return alternatives


def check_set(items: Sequence[QaItem]) -> list[str]:
    """What is wrong with the set as a whole or with an item's fields (empty: nothing)."""
    problems = [f"duplicate id {i!r}" for i, n in Counter(i.id for i in items).items() if n > 1]
    for item in items:
        problems.extend(f"{item.id}: {p}" for p in _field_problems(item))
    return problems


def _field_problems(item: QaItem) -> Iterable[str]:
    if not item.question.strip():
        yield "empty question"
    if not item.kind:
        return  # a line of the older format: nothing more is required
    if item.answerable != (item.kind in ANSWERABLE_KINDS):
        yield f"a {item.kind} question must have answerable={item.kind in ANSWERABLE_KINDS}"
    if item.vault is None:
        yield "no vault"
    if item.answerable:
        if not item.gold_files:
            yield "an answerable question needs gold_files"
        if not item.gold_headings:
            yield "an answerable question needs gold_headings"
        if not item.must_contain:
            yield "an answerable question needs must_contain"
    elif item.gold_files or item.must_contain:
        yield "an unanswerable question has no gold_files or must_contain"
    if item.kind == "multi-note" and len(item.gold_files) < 2:
        yield "a multi-note question needs two gold files"
    if item.kind == "folder-scoped":
        if not item.folders:
            yield "a folder-scoped question needs folders"
        elif not all(
            any(g.startswith(f.strip("/") + "/") for f in item.folders) for g in item.gold_files
        ):
            yield "every gold file of a folder-scoped question lies in one of its folders"
    if item.kind == "near-miss" and not item.absent_terms:
        yield "a near-miss question needs absent_terms"


def check_against_vault(item: QaItem, root: Path) -> list[str]:
    """What is wrong with ``item`` given its vault's files: gold files that do not exist,
    gold headings or must-contain requirements found in none of them, absent terms that
    occur in the vault, a question that copies ``COPY_WORDS`` consecutive words of a gold
    note."""
    problems = []
    texts = []
    headings: set[str] = set()
    for gold in item.gold_files:
        path = root / gold
        if not path.is_file():
            problems.append(f"gold file {gold} not found")
            continue
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        texts.append(text.replace("\r\n", "\n").replace("\r", "\n"))  # as read_text reads
        headings.update(_norm(h) for h in [*_headings(texts[-1]), *_parsed_headings(gold, data)])
    for heading in item.gold_headings:
        last = _norm(heading.split(">")[-1])
        if texts and last not in headings:
            problems.append(f"gold heading {heading!r} is no heading or title of the gold files")
    low = " ".join(texts).lower()
    problems.extend(
        f"must_contain {list(req)} is in none of the gold files"
        for req in item.must_contain
        if texts and not any(alt.lower() in low for alt in req)
    )
    copied = _shared_run(item.question, texts)
    if copied:
        problems.append(f"the question copies {COPY_WORDS} words of a gold note: {copied!r}")
    if item.absent_terms:
        found = terms_in_vault(item.absent_terms, root)
        problems.extend(f"absent term {t!r} occurs in {f}" for t, f in found.items())
    return problems


def check_against_vaults(items: Sequence[QaItem], roots: Mapping[str, Path]) -> list[str]:
    """:func:`check_against_vault` for every item, against the folder ``roots`` names for
    its vault, with the absent terms of each vault looked up in one pass over its files."""
    problems = []
    for item in items:
        root = roots.get(item.vault or "")
        if root is None:
            problems.append(f"{item.id}: no folder for vault {item.vault!r}")
            continue
        without_terms = replace(item, absent_terms=())
        problems += [f"{item.id}: {p}" for p in check_against_vault(without_terms, root)]
    for vault, root in roots.items():
        terms = [t for i in items if i.vault == vault for t in i.absent_terms]
        problems += [
            f"{vault}: {t!r} occurs in {f}" for t, f in terms_in_vault(terms, root).items()
        ]
    return problems


_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_TITLE = re.compile(
    r"\A---\s*\n.*?^title:\s*['\"]?(.+?)['\"]?\s*$.*?^---\s*$", re.DOTALL | re.MULTILINE
)
_WORD = re.compile(r"[a-z0-9]+(?:['.\-][a-z0-9]+)*")


def _headings(text: str) -> list[str]:
    found = [m.group(1) for m in _HEADING.finditer(text)]
    title = _TITLE.match(text)
    if title:
        found.append(title.group(1))
    return found


def _parsed_headings(rel_path: str, data: bytes) -> list[str]:
    """The title and section headings the indexer reads a note with (an org note's
    ``* headings``, a setext heading, a title from the file name), none for a file it
    cannot parse."""
    try:
        note = parse_file(rel_path, data, datetime.now(UTC))
    except ParseError:
        return []
    return [
        note.title,
        *(s.heading_path[-1].lstrip("#").strip() for s in note.sections if s.heading_path),
    ]


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _shared_run(question: str, texts: Sequence[str]) -> str:
    words = _WORD.findall(question.lower())
    runs = {" ".join(words[i : i + COPY_WORDS]) for i in range(len(words) - COPY_WORDS + 1)}
    for text in texts:
        flat = f" {_norm(text)} "
        for run in runs:
            if f" {run} " in flat:
                return run
    return ""


def terms_in_vault(terms: Sequence[str], root: Path) -> dict[str, str]:
    """Each of ``terms`` found (case-insensitive substring) in a file under ``root``, with
    the first file holding it."""
    found: dict[str, str] = {}
    wanted = {t.lower(): t for t in terms}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace").lower()
        for low, term in wanted.items():
            if term not in found and low in text:
                found[term] = path.relative_to(root).as_posix()
        if len(found) == len(wanted):
            break
    return found


def split_rank(item_id: str) -> str:
    """The hash that orders the items of one kind for the split."""
    return hashlib.sha256(item_id.encode("utf-8")).hexdigest()


def assign_splits(items: Sequence[QaItem]) -> list[QaItem]:
    """``items`` with their split set: per kind, items ordered by the SHA-256 of their id,
    the first ``round(0.4 * n)`` are ``dev``, the rest ``test``."""
    by_kind: dict[str, list[QaItem]] = defaultdict(list)
    for item in items:
        by_kind[item.kind_or_default].append(item)
    split_of: dict[str, str] = {}
    for group in by_kind.values():
        ordered = sorted(group, key=lambda i: split_rank(i.id))
        cut = round(DEV_SHARE * len(ordered))
        split_of.update({i.id: ("dev" if n < cut else "test") for n, i in enumerate(ordered)})
    return [replace(item, split=split_of[item.id]) for item in items]


def select(items: Sequence[QaItem], split: str = "all", limit: int | None = None) -> list[QaItem]:
    """The items of ``split`` (``dev``, ``test`` or ``all``), the first ``limit`` of them."""
    if split not in (*SPLITS, "all"):
        raise ValueError(f"unknown split {split!r}")
    chosen = [i for i in items if split == "all" or i.split == split]
    return chosen if limit is None else chosen[:limit]


def to_json(item: QaItem) -> dict[str, Any]:
    """The JSON object of ``item`` (the line format above)."""
    data: dict[str, Any] = {
        "id": item.id,
        "question": item.question,
        "kind": item.kind_or_default,
        "vault": item.vault,
    }
    if item.folders:
        data["folders"] = list(item.folders)
    data.update(
        gold_files=list(item.gold_files),
        gold_headings=list(item.gold_headings),
        must_contain=[r[0] if len(r) == 1 else list(r) for r in item.must_contain],
        answerable=item.answerable,
    )
    if item.absent_terms:
        data["absent_terms"] = list(item.absent_terms)
    data["split"] = item.split
    return data
