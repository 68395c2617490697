"""File and folder names that are not UTF-8: recorded as failed, readably, never a stopped run.

Linux file names are bytes; Python hands over the ones that are not UTF-8 with surrogate
escapes, which no store can hold. Before issue 17 one such name stopped the whole index run
(exit 1, nothing recorded, later vaults left empty, every re-run failing the same way).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from notecite import Engine, Settings
from notecite.chunking.chunker import stable_chunk_id
from notecite.cli.main import cli
from notecite.ingest.scan import BAD_FOLDER_NAME, BAD_NAME, readable_name, scan_vault
from notecite.testing import hash_settings, write_files

# The files of the first vault whose names are bytes that are not UTF-8, and how they show.
BAD_NAMES = {
    b"bad\xff\xfe.md": "bad\\xff\\xfe.md",  # not UTF-8 at all
    b"sub/caf\xe9.md": "sub/caf\\xe9.md",  # Latin-1
    b"d\xc3(/inside.md": "d\\xc3(",  # a folder: reported once, its files not read
}
REASONS = {
    "bad\\xff\\xfe.md": BAD_NAME,
    "sub/caf\\xe9.md": BAD_NAME,
    "d\\xc3(": BAD_FOLDER_NAME,
}


def write_bad_names(vault: Path) -> None:
    """Add the files of :data:`BAD_NAMES` under ``vault``, named with raw bytes."""
    for raw in BAD_NAMES:
        path = os.path.join(os.fsencode(vault), raw)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(b"# Hidden\n\nzebra words that are never indexed\n")


@pytest.fixture
def vaults(tmp_path: Path) -> tuple[Path, Path]:
    """Vault ``a`` with good notes and the bad names; vault ``b`` (indexed after it)."""
    a = write_files(
        tmp_path / "a",
        {"good.md": "# Good\n\napollo launch notes\n", "sub/fine.md": "# Fine\n\nmore apollo\n"},
    )
    write_bad_names(a)
    b = write_files(tmp_path / "b", {"later.md": "# Later\n\nhermes migration notes\n"})
    return a, b


def failures(engine: Engine, vault: str) -> dict[str, str]:
    """rel_path -> reason of the vault's failed files."""
    (status,) = [v for v in engine.status().vaults if v.name == vault]
    return {f.rel_path: f.reason for f in status.failed}


def test_scan_reports_undecodable_names_readably() -> None:
    assert readable_name("ok/n\u00e9.md") == "ok/n\u00e9.md"
    assert readable_name(os.fsdecode(b"x\xff.md")) == "x\\xff.md"
    assert readable_name("lone\ud800.md") == "lone\\xed\\xa0\\x80.md"  # not from a file system
    # a chunk id takes any text, surrogates too, and does not change for valid text
    assert stable_chunk_id("v", os.fsdecode(b"x\xff.md"), 0, "h") != stable_chunk_id(
        "v", "x.md", 0, "h"
    )
    assert stable_chunk_id("v", "n.md", 3, "h") == stable_chunk_id("v", "n.md", 3, "h")


def test_scan_yields_one_failed_entry_per_bad_name(vaults: tuple[Path, Path]) -> None:
    a, _ = vaults
    entries = list(scan_vault(a, [".md"], [], 1_000_000))
    found = {e.rel_path: e.error for e in entries}
    assert {k: v for k, v in found.items() if v} == REASONS
    assert {k for k, v in found.items() if not v} == {"good.md", "sub/fine.md"}
    for entry in entries:
        entry.rel_path.encode("utf-8")  # every name is valid text


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_bad_names_are_recorded_and_never_stop_a_run(
    request: pytest.FixtureRequest, tmp_path: Path, vaults: tuple[Path, Path], backend: str
) -> None:
    store = (
        {"backend": "postgres", "url": request.getfixturevalue("pg_url")}
        if backend != "sqlite"
        else {}
    )
    settings = hash_settings(tmp_path / "home", store=store)
    a, b = vaults
    with Engine(settings) as engine:
        engine.add_vault("a", a)
        engine.add_vault("b", b)
        first = {r.vault: r for r in engine.index()}
        assert (first["a"].added, first["a"].failed) == (2, len(REASONS))
        assert first["b"].added == 1  # the vault after the bad names is indexed
        assert failures(engine, "a") == REASONS
        assert {r.rel_path for r in engine.search("apollo", vaults=["a"])} == {
            "good.md",
            "sub/fine.md",
        }
        assert {r.rel_path for r in engine.search("hermes migration", vaults=["b"])} == {"later.md"}
        assert not [r for r in engine.search("zebra words") if "zebra" in r.text]

        again = {r.vault: r for r in engine.index()}  # re-runs go through, and change nothing
        assert (again["a"].unchanged, again["a"].failed, again["a"].added) == (2, 3, 0)
        assert failures(engine, "a") == REASONS

        os.rename(os.path.join(os.fsencode(a), b"bad\xff\xfe.md"), a / "renamed.md")
        (renamed,) = engine.index("a")
        assert (renamed.added, renamed.failed) == (1, 2)
        assert "bad\\xff\\xfe.md" not in failures(engine, "a")
        assert [r.rel_path for r in engine.search("zebra words") if "zebra" in r.text] == [
            "renamed.md"
        ]


def test_the_cli_index_run_finishes_and_names_the_file(
    tmp_path: Path, vaults: tuple[Path, Path]
) -> None:
    a, _ = vaults
    settings: Settings = hash_settings(tmp_path / "home")
    result = CliRunner().invoke(
        cli, ["--home", str(settings.home), "--embedder", "hash", "index", str(a), "--vault", "a"]
    )
    assert result.exit_code == 0, result.output
    assert "bad\\xff\\xfe.md" in result.output
