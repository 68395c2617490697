"""The links a note makes to other notes, read from its file with their lines.

"Which notes link to the PG16 upgrade?" is answered from these (the backlinks a careful
Obsidian, Foam or Dendron user expects). A note links to another by

- a wikilink: ``[[pg16-upgrade]]``, ``[[pg16-upgrade|the upgrade]]``,
  ``[[pg16-upgrade#Rollback]]``, ``[[projects/pg16-upgrade]]``, Dendron's
  ``[[label|projects.pg16-upgrade]]``, or an embed ``![[pg16-upgrade]]``;
- a markdown link to a note file: ``[the upgrade](../projects/pg16-upgrade.md)`` (resolved
  from the linking note's folder; a web address, or an image or other file that is no note,
  is no link to a note);
- a wikilink in a frontmatter value: ``related: "[[pg16-upgrade]]"``, or a list of them.

A link in a fenced code block or a code span is an example of the syntax, not a link. Each
is recorded with the 1-based line of the file it is on, as a citation counts lines
(frontmatter lines included), and its target as written, read for resolution
(:func:`link_target`): lower case, without the ``.md`` suffix or a heading or block anchor,
its path kept. A target names a note by its file name in any folder (a path in it narrows
it: :func:`names_of`), or by the note's title or alias.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from notecite.ingest.code_regions import CODE_SPAN, in_code
from notecite.types import NOTE_SUFFIXES, NoteLink

LINE_TEXT_CHARS = 300
"""The most characters of a link's line kept for its quote."""

WIKILINK = re.compile(r"!?\[\[([^\]|#\n]*)(#[^\]|\n]*)?(?:\|([^\]\n]+))?\]\]")
"""``[[target#anchor|alias]]``, an embed ``![[...]]`` too: (target, #anchor, alias)."""

VAULT_PREFIX = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]*/", re.IGNORECASE)  # dendron://vault/

# [text](path "title") or [text](<path with spaces>); an image ![alt](...) too: its path
# decides whether it names a note
_MD_LINK = re.compile(r"\[[^\]\n]*\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+[\"'(][^)\n]*)?\s*\)")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, obsidian:


def reads_as_target(text: str) -> bool:
    """``text`` reads as a link target, not a label: a URI, or one word with ``.`` or ``/``
    (Obsidian and Foam write ``[[target|label]]``, Dendron ``[[label|target]]``)."""
    return "://" in text or (" " not in text and any(mark in text for mark in "./"))


def _without_suffix(path: str) -> str:
    lowered = path.lower()
    for suffix in NOTE_SUFFIXES:
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    return path


def link_target(written: str) -> str:
    """A target as written, read for resolution: ``Projects/PG16-Upgrade.md`` ->
    ``projects/pg16-upgrade``; "" when it names no note (``[[#Heading]]`` links within the
    note itself)."""
    target = VAULT_PREFIX.sub("", written.strip())
    target = target.split("^", 1)[0]  # [[note^block-id]]
    target = _without_suffix(target.strip().lstrip("/").removeprefix("./"))
    return " ".join(target.lower().split())


def names_of(rel_path: str) -> tuple[str, ...]:
    """The targets that name the note at ``rel_path`` by its file: its name without the
    suffix and each path that ends with it (``work/projects/pg16-upgrade.md`` ->
    ``pg16-upgrade``, ``projects/pg16-upgrade``, ``work/projects/pg16-upgrade``)."""
    parts = link_target(rel_path).split("/")
    return tuple("/".join(parts[i:]) for i in range(len(parts) - 1, -1, -1))


def _wikilink_target(match: re.Match[str]) -> str:
    target, alias = match.group(1).strip(), match.group(3)
    if alias and reads_as_target(alias.strip()) and target and not reads_as_target(target):
        target = alias.strip()  # Dendron's [[label|target]]
    return link_target(target)


def _markdown_target(written: str, folder: str) -> str:
    """The note a markdown link's path names, from the vault's root; "" for a web address,
    an anchor within the note, or a file that is no note."""
    path = unquote(written.split("#", 1)[0].split("?", 1)[0]).strip()
    if not path or _SCHEME.match(path) or not path.lower().endswith(NOTE_SUFFIXES):
        return ""
    if not path.startswith("/"):
        path = posixpath.join(folder, path)
    resolved = posixpath.normpath(path.lstrip("/"))
    return "" if resolved.startswith("..") else link_target(resolved)


def _prose(line: str) -> str:
    """``line`` with its code spans blanked (a link shown as code is no link)."""
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def note_links(
    rel_path: str, text: str, body_offset: int, readable: dict[int, str] | None = None
) -> tuple[NoteLink, ...]:
    """The links of the markdown note at ``rel_path`` whose file reads ``text`` (its body
    starting after ``body_offset`` lines of frontmatter), in the order of the file, one per
    target and line. ``readable`` maps a 0-based line to how the index reads it (the quote
    of a link on it); a line not in it is quoted as written."""
    folder = posixpath.dirname(rel_path)
    lines = text.split("\n")
    found: dict[tuple[str, int], NoteLink] = {}

    def add(target: str, index: int) -> None:
        if target and (target, index + 1) not in found:
            shown = (readable or {}).get(index, lines[index]).strip()[:LINE_TEXT_CHARS]
            found[target, index + 1] = NoteLink(target, index + 1, shown)

    for index in range(1, max(body_offset - 1, 1)):  # frontmatter values, between the fences
        for match in WIKILINK.finditer(lines[index]):
            add(_wikilink_target(match), index)
    code = in_code(lines[body_offset:])
    for index in range(body_offset, len(lines)):
        if code[index - body_offset] or "[" not in lines[index]:
            continue
        prose = _prose(lines[index])
        for match in WIKILINK.finditer(prose):
            add(_wikilink_target(match), index)
        for match in _MD_LINK.finditer(WIKILINK.sub(" ", prose)):
            add(_markdown_target(match.group(1) or match.group(2), folder), index)
    return tuple(found.values())
