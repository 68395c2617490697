"""Reading one note by its path (``get_note`` and the note resources of the MCP server):
never anything outside the vault's folder, only indexed notes, through the Engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite import Engine
from notecite.errors import VaultError
from notecite.ingest.note_files import MAX_PATH_CHARS, note_path
from tests.helpers import MakeVault
from tests.ingest.test_pdf import make_pdf


@pytest.fixture
def vault(make_vault: MakeVault, tmp_path: Path) -> Path:
    root = make_vault({"a/b/note.md": "# Note\r\nline two\r\n", "top.md": "# Top\n"})
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nsecret\n")
    (root / "out.md").symlink_to(outside)
    (root / "a" / "up").symlink_to(tmp_path)
    return root


def test_a_path_under_the_vault_is_its_file(vault: Path) -> None:
    assert note_path(vault, "a/b/note.md") == (vault / "a" / "b" / "note.md").resolve()


@pytest.mark.parametrize(
    ("rel_path", "refusal"),
    [
        ("../outside.md", "leaves its vault"),
        ("a/../../outside.md", "leaves its vault"),
        ("C:/Windows/win.ini", "leaves its vault"),
        ("/etc/passwd", "must be relative"),
        ("a\\b\\note.md", "must be relative"),
        ("", "must be relative"),
        ("a/\x00.md", "no NUL"),
        ("a/" * MAX_PATH_CHARS, "at most 4096"),
        ("out.md", "no note 'out.md'"),  # a symlink leading out of the vault
        ("a/up/outside.md", "no note"),  # a folder symlink leading out
        ("missing.md", "no note"),
        ("a/b", "no note"),  # a folder
    ],
)
def test_paths_that_leave_the_vault_or_name_no_file_are_refused(
    vault: Path, rel_path: str, refusal: str
) -> None:
    with pytest.raises(VaultError, match=refusal) as refused:
        note_path(vault, rel_path)
    assert "secret" not in str(refused.value)
    assert str(vault.parent) not in str(refused.value)


def test_the_engine_reads_indexed_notes_only(engine: Engine, vault: Path) -> None:
    engine.add_vault("v", vault)
    engine.index()
    assert engine.note_text("v", "a/b/note.md") == "# Note\nline two\n"
    assert engine.folders("v") == ["", "a/b"]
    (vault / "later.md").write_text("# Later\n")
    with pytest.raises(VaultError, match=r"'later.md' is not an indexed note of vault 'v'"):
        engine.note_text("v", "later.md")
    with pytest.raises(VaultError, match="unknown vault 'w'; known vaults: v"):
        engine.note_text("w", "top.md")
    with pytest.raises(VaultError, match="unknown vault 'w'"):
        engine.folders("w")
    with pytest.raises(VaultError, match="leaves its vault"):
        engine.note_text("v", "../outside.md")


def test_a_pdf_note_is_not_read_as_text(engine: Engine, make_vault: MakeVault) -> None:
    root = make_vault({"scan.pdf": make_pdf([["The scanned page."]])}, name="pdfs")
    engine.add_vault("p", root)
    engine.index()
    with pytest.raises(VaultError, match=r"scan\.pdf is a PDF"):
        engine.note_text("p", "scan.pdf")
