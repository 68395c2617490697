"""Walk a vault: the files to index, and the entries that cannot be indexed and why.

Hidden files and folders (``.git``, ``.obsidian``...) and configured folder names are
skipped. Symbolic links are never followed: one that is broken, loops, leaves the vault, or
aliases something already inside it is reported with its reason instead.

A name that is not valid UTF-8 (Python hands it over with surrogate escapes) cannot be stored,
hashed into a chunk id or shown: such a file, or folder, is reported as a problem entry under
a readable form of its name (``bad\\xff.md``) and never indexed, so it costs one entry, not
the run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ScanEntry:
    """A file found in a vault, or a reason it cannot be indexed."""

    rel_path: str
    path: Path
    size: int
    mtime_ns: int
    error: str | None = None


BAD_NAME = "file name is not valid UTF-8; rename the file to index it"
BAD_FOLDER_NAME = "folder name is not valid UTF-8; rename the folder to index its files"


def readable_name(name: str) -> str:
    """``name`` as valid text: bytes that were not UTF-8 become ``\\xNN`` escapes."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = name.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate no file system decoding produces
            raw = name.encode("utf-8", "surrogatepass")
        return raw.decode("utf-8", "backslashreplace")
    return name


def _symlink_problem(link: Path, root: Path) -> str:
    try:
        target = link.resolve(strict=True)
    except RuntimeError:
        return "symlink loop"
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return "symlink loop"
        return "broken symlink (target does not exist)"
    if not target.is_relative_to(root):
        return "symlink leads outside the vault; skipped"
    if target.is_dir() and link.parent.resolve().is_relative_to(target):
        return "symlink loop (points at a folder that contains it)"
    return "symlink to something already in the vault; indexed at its real path only"


def scan_vault(
    root: Path, extensions: Sequence[str], ignore_dirs: Sequence[str], max_bytes: int
) -> Iterator[ScanEntry]:
    """Yield every indexable file under ``root`` (sorted), and problem entries."""
    root = root.resolve()
    wanted = {e.lower() for e in extensions}
    ignored = set(ignore_dirs)
    stack = [root]
    while stack:
        folder = stack.pop()
        rel_folder = folder.relative_to(root).as_posix()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            reason = "permission denied" if isinstance(exc, PermissionError) else str(exc)
            yield ScanEntry(rel_folder, folder, 0, 0, f"folder not readable: {reason}")
            continue
        subfolders = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            rel = path.relative_to(root).as_posix()
            readable = readable_name(rel)
            if readable != rel:
                yield _bad_name(entry, readable, path)
                continue
            if entry.is_symlink():
                is_note = path.suffix.lower() in wanted
                if is_note or not path.exists() or path.is_dir():
                    yield ScanEntry(rel, path, 0, 0, _symlink_problem(path, root))
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in ignored:
                    subfolders.append(path)
                continue
            if not entry.is_file(follow_symlinks=False) or path.suffix.lower() not in wanted:
                continue
            stat = entry.stat(follow_symlinks=False)
            error = None
            if stat.st_size > max_bytes:
                error = (
                    f"file too large ({stat.st_size} bytes; the limit index.max_file_bytes "
                    f"is {max_bytes})"
                )
            yield ScanEntry(rel, path, stat.st_size, stat.st_mtime_ns, error)
        stack.extend(reversed(subfolders))


def _bad_name(entry: os.DirEntry[str], readable: str, path: Path) -> ScanEntry:
    """The problem entry of a file or folder whose name is not valid UTF-8."""
    try:
        is_dir = entry.is_dir(follow_symlinks=False)
        stat = entry.stat(follow_symlinks=False)
    except OSError:
        return ScanEntry(readable, path, 0, 0, BAD_NAME)
    if is_dir:
        return ScanEntry(readable, path, 0, 0, BAD_FOLDER_NAME)
    return ScanEntry(readable, path, stat.st_size, stat.st_mtime_ns, BAD_NAME)
