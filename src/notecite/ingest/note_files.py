"""Reading one note of a vault by its path, never anything outside the vault's folder.

A path is accepted only when it is relative, with ``/`` separators, has no ``..`` segment,
no drive and no NUL, and, with every symlink resolved, still names a file under the vault's
root. The refusals say what was wrong with the path as given, never where it resolves to.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from notecite.errors import ParseError, VaultError
from notecite.ingest.parse import decode_text

MAX_PATH_CHARS = 4096  # PATH_MAX on Linux: no longer path names a file
_DRIVE = re.compile(r"[A-Za-z]:")


def note_path(root: Path, rel_path: str) -> Path:
    """The file ``rel_path`` names under the vault folder ``root``, checked to stay under it.

    Raises:
        VaultError: the path is absolute, empty, too long, has a ``..`` segment, a drive or a
            NUL, or names no file under ``root`` (a symlink leading out counts as none).
    """
    if "\x00" in rel_path or len(rel_path) > MAX_PATH_CHARS:
        raise VaultError(
            f"a note path is at most {MAX_PATH_CHARS} characters, with no NUL character"
        )
    parts = PurePosixPath(rel_path).parts
    if not parts or rel_path.startswith(("/", "\\")) or "\\" in rel_path:
        raise VaultError(
            f"note path {rel_path!r} must be relative to its vault, with '/' separators"
        )
    if ".." in parts or _DRIVE.fullmatch(parts[0]):
        raise VaultError(f"note path {rel_path!r} leaves its vault ('..' or a drive): refused")
    base = root.resolve()
    missing = VaultError(f"no note {rel_path!r} in this vault")
    try:
        candidate = (base / Path(*parts)).resolve()
        if not candidate.is_relative_to(base) or not candidate.is_file():
            raise missing
    except OSError as exc:  # a name too long, a symlink loop: nothing there to read
        raise missing from exc
    return candidate


def read_note_text(file: Path) -> str:
    """The text of a note file (UTF-8, newlines normalised).

    Raises:
        VaultError: the file is a PDF or not UTF-8 text, or cannot be read.
    """
    if file.suffix.lower() == ".pdf":
        raise VaultError(
            f"{file.name} is a PDF: its text is in the search results; open the file to read it"
        )
    try:
        return decode_text(file.read_bytes())
    except OSError as exc:  # strerror only: the message must not name the server's paths
        raise VaultError(f"cannot read {file.name}: {exc.strerror}") from exc
    except ParseError as exc:
        raise VaultError(f"cannot read {file.name}: {exc}") from exc
