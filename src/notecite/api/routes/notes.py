"""``GET /notes/{vault}/{path}``: the file of an indexed note (or a picture of the vault a note
shows), never anything outside its vault.

The web page's citation links open notes through this route. A path is served only when it
is a note of the vault's index and, with every symlink resolved, still lies under the vault's
root: ``..`` segments, absolute paths and links that leave the root are refused.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path, PurePosixPath

from fastapi import APIRouter
from fastapi.responses import FileResponse

from notecite.api.errors import InvalidRequestError, NotFoundError
from notecite.api.services import ServicesDep

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/notes", tags=["notes"])

# Served as plain text, whatever the note's format, so that no note's HTML runs in the page.
_MEDIA_TYPES = {".pdf": "application/pdf"}
# Pictures a note shows (![](img/x.png)), served from the vault though never indexed. No SVG:
# opened on its own it could run script.
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".bmp": "image/bmp",
}
_TEXT = "text/plain; charset=utf-8"
_DRIVE = re.compile(r"[A-Za-z]:")
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux: no longer path names a file


def note_file(root: Path, rel_path: str) -> Path:
    """The file ``rel_path`` names under ``root``, checked to stay under it.

    Raises:
        InvalidRequestError: ``rel_path`` is absolute, empty, has a ``..`` segment, a NUL, or
            is longer than any file path can be.
        NotFoundError: no such file (the system cannot even look it up: a name too long), or
            it resolves (through a symlink) outside ``root``.
    """
    if "\x00" in rel_path or len(rel_path) > MAX_PATH_CHARS:
        raise InvalidRequestError(
            f"a note path is at most {MAX_PATH_CHARS} characters, with no NUL character"
        )
    parts = PurePosixPath(rel_path).parts
    if not parts or rel_path.startswith(("/", "\\")) or "\\" in rel_path:
        raise InvalidRequestError("a note path is relative to its vault, with '/' separators")
    if ".." in parts or _DRIVE.fullmatch(parts[0]):
        raise InvalidRequestError("a note path cannot leave its vault ('..' or a drive)")
    base = root.resolve()
    try:
        candidate = (base / Path(*parts)).resolve()
        if not candidate.is_relative_to(base):
            logger.warning("refused a note path that resolves outside its vault")
            raise NotFoundError("no such note in this vault")
        if not candidate.is_file():
            raise NotFoundError("no such note in this vault")
    except OSError as exc:  # a name too long, a loop: nothing there to serve
        raise NotFoundError("no such note in this vault") from exc
    return candidate


@router.get("/{vault}/{path:path}", response_class=FileResponse)
def get_note(vault: str, path: str, services: ServicesDep) -> FileResponse:
    """The note's file as it is on disk (text as ``text/plain``, PDF as itself), or a picture
    of the vault (PNG, JPEG, GIF, WebP, AVIF, BMP) that a note shows."""
    found = services.engine.store.get_vault(vault)
    if found is None:
        raise NotFoundError(f"unknown vault {vault!r}; list vaults with GET /vaults")
    file = note_file(found.path, path)
    image = IMAGE_TYPES.get(file.suffix.lower())
    if image is not None:
        return FileResponse(file, media_type=image, headers={"Cache-Control": "no-store"})
    state = services.engine.store.note_states(found.id).get(path)
    if state is None or state.failed:
        raise NotFoundError(f"{path!r} is not an indexed note of vault {vault!r}")
    media_type = _MEDIA_TYPES.get(file.suffix.lower(), _TEXT)
    return FileResponse(file, media_type=media_type, headers={"Cache-Control": "no-store"})
