"""Org-mode notes (Emacs, org-roam): read line for line as the markdown they mean.

An ``.org`` file is translated one line to one line, so every section, chunk and citation
keeps the file's line numbers, and then read as a markdown note:

- ``* Heading`` / ``** Sub`` are headings (their trailing ``:tags:`` left out);
- ``#+title:``, ``#+filetags: :a:b:``, ``#+date: <2026-01-22 Thu>``, ``#+roam_aliases:``
  and the ``:PROPERTIES:`` drawer before the first heading are the note's metadata (title,
  tags, date, aliases); these lines, other ``#+keyword:`` lines, drawers and ``# comments``
  are read as blank lines;
- ``#+begin_src lang`` ... ``#+end_src`` (and example, verse, export blocks) are fenced
  code; ``#+begin_quote`` ... ``#+end_quote`` quote their lines;
- ``[[target][label]]`` links read as their label, ``[[target]]`` as the target;
  ``~code~`` and ``=verbatim=`` as code spans; a table's rule ``|---+---|`` as markdown's.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from notecite.ingest.markdown import body_lines_as_read, parse_body
from notecite.types import DocType, ParsedNote

_HEADING = re.compile(r"^(\*+)\s+(.*?)(?:\s+(:[\w@#%:]+:))?\s*$")
_KEYWORD = re.compile(r"^\s*#\+(\w+):\s*(.*?)\s*$")
_BLOCK = re.compile(r"^\s*#\+(begin|end)_(\w+)(.*)$", re.IGNORECASE)
_COMMENT = re.compile(r"^\s*#(?:\s|$)")
_DRAWER_START = re.compile(r"^\s*:([\w-]+):\s*$")
_DRAWER_END = re.compile(r"^\s*:end:\s*$", re.IGNORECASE)
_PROPERTY = re.compile(r"^\s*:([\w-]+):\s+(.*?)\s*$")
_LINK = re.compile(r"\[\[([^\[\]]+)\](?:\[([^\[\]]+)\])?\]")
_CODE = re.compile(r"(?<![\w~=])([~=])(?=\S)([^\n]*?\S)\1(?![\w~=])")
_TIMESTAMP = re.compile(r"[<\[](\d{4}-\d{2}-\d{2})[^>\]]*[>\]]")
_TABLE_RULE = re.compile(r"^(\s*)\|[-+]+\|?\s*$")  # "|---+---|": markdown's "|---|---|"
# blocks whose lines are code (a fence), and blocks whose lines are a quotation
_CODE_BLOCKS = frozenset({"src", "example", "verse", "export", "comment"})
_LIST_KEYS = frozenset({"filetags", "tags", "roam_aliases", "roam_tags"})
_KEY_NAMES = {"filetags": "tags", "roam_tags": "tags", "roam_aliases": "aliases"}


def _values(key: str, value: str) -> Any:
    """A keyword's value: a list for tags (``:a:b:`` or words) and aliases (``"Two words"
    one``), the day for a date, else the text."""
    if key in ("filetags", "roam_tags", "tags"):
        return [t for t in re.split(r"[:\s]+", value) if t]
    if key == "roam_aliases":
        return [a or b for a, b in re.findall(r'"([^"]+)"|(\S+)', value)]
    if key == "date":
        stamp = _TIMESTAMP.search(value)
        return stamp.group(1) if stamp else value
    return value


def _inline(line: str) -> str:
    """A line's links as their labels and its ``~code~``/``=verbatim=`` as code spans."""
    line = _LINK.sub(lambda m: m.group(2) or re.sub(r"^(file|id|roam):", "", m.group(1)), line)
    return _CODE.sub(lambda m: f"`{m.group(2)}`", line)


def org_as_markdown(text: str) -> tuple[dict[str, Any], str]:
    """(metadata, body) of an org note: the body as markdown, one line for each line."""
    meta: dict[str, Any] = {}
    out: list[str] = []
    block: str | None = None  # the kind of the #+begin_ block the line is in
    drawer = False
    heading_seen = False
    for line in text.split("\n"):
        marker = _BLOCK.match(line)
        if block in _CODE_BLOCKS:
            if marker and marker.group(1).lower() == "end":
                block = None
                out.append("```")
            else:
                out.append(line)
            continue
        if marker:
            kind = marker.group(2).lower()
            if marker.group(1).lower() == "begin":
                block = kind
                language = marker.group(3).split()[0] if marker.group(3).split() else ""
                out.append(f"```{language}" if kind in _CODE_BLOCKS else "")
            else:
                block = None
                out.append("")
            continue
        if drawer:
            drawer = not _DRAWER_END.match(line)
            prop = _PROPERTY.match(line)
            if prop and not heading_seen:
                key = prop.group(1).lower()
                meta.setdefault(_KEY_NAMES.get(key, key), _values(key, prop.group(2)))
            out.append("")
            continue
        if _DRAWER_START.match(line) and not _DRAWER_END.match(line):
            drawer = True
            out.append("")
            continue
        keyword = _KEYWORD.match(line)
        if keyword:
            key = keyword.group(1).lower()
            if not heading_seen or key in _LIST_KEYS or key in ("title", "date"):
                meta.setdefault(_KEY_NAMES.get(key, key), _values(key, keyword.group(2)))
            out.append("")
            continue
        if _COMMENT.match(line):
            out.append("")
            continue
        heading = _HEADING.match(line)
        if heading:
            heading_seen = True
            out.append(f"{'#' * len(heading.group(1))} {_inline(heading.group(2))}")
            continue
        rule = _TABLE_RULE.match(line)
        if rule:
            out.append(rule.group(0).replace("+", "|"))
            continue
        out.append(f"> {_inline(line)}" if block == "quote" and line.strip() else _inline(line))
    return meta, "\n".join(out)


def org_lines_as_read(text: str) -> list[str]:
    """The lines of an org note as the index reads them, numbered as in the file."""
    meta, body = org_as_markdown(text)
    return body_lines_as_read(body, meta)


def parse_org(rel_path: str, text: str, mtime: datetime) -> ParsedNote:
    """An org note, read as the markdown it means (:func:`org_as_markdown`)."""
    meta, body = org_as_markdown(text)
    return parse_body(rel_path, body, meta, body, 0, mtime, DocType.ORG)
