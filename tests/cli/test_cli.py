"""The `notecite` command through click's runner, on a real home folder and vault."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from notecite import Engine
from notecite.cli.main import cli
from notecite.store.base import index_lock
from notecite.testing import CliRun, hash_settings, write_files

NOTES = {
    "projects/atlas.md": (
        "---\ntitle: Atlas\n---\n# Atlas\n## Budget\nThe atlas budget is USD 240,000.\n"
    ),
    "projects/work/plan.md": "# Plan\nWork plan for the atlas budget review.\n",
    "projects-old/legacy.md": "# Legacy\nOld atlas budget numbers.\n",
    "journal/2025-01-02.md": "# Journal\nMet Priya about the atlas budget.\n",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(tmp_path / "notes", dict(NOTES))


@pytest.fixture
def run(home: Path) -> CliRun:
    """``notecite --home HOME --embedder hash ARGS``."""
    return CliRun(home)


@pytest.fixture
def indexed(run: CliRun, vault: Path) -> Path:
    run("index", str(vault), "--vault", "notes")
    return vault


def test_vault_add_list_remove(run: CliRun, vault: Path, tmp_path: Path) -> None:
    assert "no vaults yet" in run("vault", "list").output
    added = run("vault", "add", "notes", str(vault))
    assert f"added vault notes -> {vault.resolve()}" in added.output
    other = write_files(tmp_path / "other", {"a.md": "# A\nx\n"})
    run("vault", "add", "other", str(other))
    listing = run("vault", "list").output.strip().splitlines()
    assert listing == [f"notes\t{vault.resolve()}", f"other\t{other.resolve()}"]
    as_json = json.loads(run("vault", "list", "--json").stdout)
    assert as_json == {
        "vaults": [
            {"name": "notes", "path": str(vault.resolve())},
            {"name": "other", "path": str(other.resolve())},
        ]
    }
    assert "removed vault other" in run("vault", "remove", "other").output
    assert [v["name"] for v in json.loads(run("vault", "list", "--json").stdout)["vaults"]] == [
        "notes"
    ]


def test_vault_errors_exit_1(run: CliRun, vault: Path, tmp_path: Path) -> None:
    run("vault", "add", "notes", str(vault))
    duplicate = run("vault", "add", "notes", str(vault), code=1)
    assert "exists already" in duplicate.stderr
    assert "Traceback" not in duplicate.output
    missing = run("vault", "add", "nope", str(tmp_path / "missing"), code=1)
    assert "vault folder not found" in missing.stderr
    gone = run("vault", "remove", "never-added", code=1)
    assert "never-added" in gone.stderr


def test_index_path_then_status_json(run: CliRun, vault: Path) -> None:
    (vault / "empty.md").write_text("")
    out = run("index", str(vault), "--vault", "notes").output
    assert "notes: added 4, updated 0, unchanged 0, removed 0, failed 1" in out
    assert "failed empty.md: empty file" in out
    again = run("index").output
    assert "notes: added 0, updated 0, unchanged 4, removed 0, failed 1" in again

    status = json.loads(run("status", "--json").stdout)
    assert set(status) == {"vaults", "embedder", "caches"}
    assert [c["name"] for c in status["caches"]] == ["query_embeddings", "search_results"]
    assert status["caches"][0] == {
        "name": "query_embeddings",
        "entries": 0,
        "max_entries": 100,
        "hits": 0,
        "misses": 0,
        "hit_rate": 0.0,
    }
    (entry,) = status["vaults"]
    assert set(entry) == {
        "name",
        "path",
        "notes",
        "chunks",
        "failed",
        "waiting_for_vectors",
        "missing_vectors",
        "unsplit_chunks",
        "missing_sentence_vectors",
        "gaps",
        "indexed_at",
        "indexing",
    }
    assert (entry["missing_vectors"], entry["missing_sentence_vectors"], entry["gaps"]) == (
        0,
        0,
        [],
    )
    assert entry["name"] == "notes"
    assert entry["path"] == str(vault.resolve())
    assert entry["notes"] == 4
    assert isinstance(entry["chunks"], int)
    assert entry["chunks"] >= 4
    assert entry["failed"] == [{"rel_path": "empty.md", "reason": "empty file"}]
    assert status["embedder"] == {"model": "hash-256", "dimensions": 256}
    assert entry["indexing"] is None
    indexed = datetime.fromisoformat(entry["indexed_at"])
    assert abs(datetime.now(UTC) - indexed) < timedelta(minutes=5)


def test_status_text(run: CliRun, indexed: Path) -> None:
    out = run("status").output
    assert "embedding model: hash-256, 256 dimensions" in out
    assert "notes: 4 notes" in out
    assert re.search(r"\n  last indexed: \d{4}-\d\d-\d\d \d\d:\d\d\n", out), out
    assert "being indexed now" not in out
    assert "cache " not in out
    verbose = run("status", "--verbose").output
    assert "cache query_embeddings: 0/100 entries, 0 hits, 0 misses (0% hit rate)" in verbose


def test_status_names_a_run_going_on(run: CliRun, indexed: Path) -> None:
    """A run of another process (here: its index lock, held by this test) shows in status."""
    with Engine(hash_settings(run.home)) as engine:
        vault = engine.vault("notes")
        with index_lock(engine.store, [(vault.id, vault.name)], 0):
            out = run("status").output
            status = json.loads(run("status", "--json").stdout)
    assert f"; being indexed now (pid {os.getpid()})" in out
    assert status["vaults"][0]["indexing"] == f"pid {os.getpid()}"
    assert "being indexed now" not in run("status").output


def test_status_before_anything_is_indexed(run: CliRun) -> None:
    status = json.loads(run("status", "--json").stdout)
    assert status["vaults"] == []
    assert status["embedder"] == {"model": None, "dimensions": None}


def test_index_without_name_uses_the_folder_name(run: CliRun, vault: Path) -> None:
    run("index", str(vault))
    run("index", str(vault))  # the same folder again is the same vault
    names = [v["name"] for v in json.loads(run("vault", "list", "--json").stdout)["vaults"]]
    assert names == [vault.name]


def _search(run: CliRun, *args: str) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = json.loads(run("search", *args, "--json").stdout)["results"]
    return results


def test_search_json_shape(run: CliRun, indexed: Path) -> None:
    results = _search(run, "atlas budget")
    assert results
    for result in results:
        assert set(result) == {
            "vault",
            "rel_path",
            "heading_path",
            "chunk_index",
            "chunk_id",
            "text",
            "score_vector",
            "score_bm25",
            "score",
        }
        assert result["vault"] == "notes"
        assert isinstance(result["chunk_index"], int)
        assert isinstance(result["score"], float)
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    budget = next(r for r in results if r["rel_path"] == "projects/atlas.md")
    assert budget["heading_path"] == "# Atlas > ## Budget"
    assert "USD 240,000" in str(budget["text"])


def test_search_k_vault_and_folder(run: CliRun, indexed: Path, tmp_path: Path) -> None:
    assert len(_search(run, "atlas budget", "-k", "2")) == 2
    in_projects = {r["rel_path"] for r in _search(run, "atlas budget", "--folder", "projects")}
    assert in_projects == {"projects/atlas.md", "projects/work/plan.md"}
    two = _search(run, "atlas budget", "--folder", "journal", "--folder", "projects-old")
    assert {r["rel_path"] for r in two} == {"journal/2025-01-02.md", "projects-old/legacy.md"}
    other = write_files(tmp_path / "other", {"x.md": "# X\natlas budget elsewhere\n"})
    run("index", str(other), "--vault", "other")
    assert {r["vault"] for r in _search(run, "atlas budget")} == {"notes", "other"}
    assert {r["vault"] for r in _search(run, "atlas budget", "--vault", "other")} == {"other"}


def test_search_text_output(run: CliRun, indexed: Path) -> None:
    out = run("search", "atlas budget", "-k", "1").output
    assert "[1] notes/" in out
    assert "score" in out


def test_search_with_no_vault_says_so(run: CliRun) -> None:
    for args in (("search", "anything at all"), ("search", "anything", "--json")):
        result = run(*args, code=1)
        assert result.stderr == (
            "error: no vaults yet: add one with `notecite vault add NAME PATH`, "
            "then run `notecite index`\n"
        )
        assert result.stdout == ""


def test_unknown_vault_lists_the_known_ones(run: CliRun, indexed: Path) -> None:
    result = run("search", "atlas", "--vault", "nope", code=1)
    assert "unknown vault 'nope'" in result.stderr
    assert "known vaults: notes" in result.stderr
    assert "Traceback" not in result.output
    assert "known vaults: notes" in run("index", "--vault", "nope", code=1).stderr


def test_bad_arguments_are_usage_errors(run: CliRun, indexed: Path) -> None:
    run("search", "atlas", "-k", "0", code=2)
    run("search", code=2)
    run("frobnicate", code=2)


def test_config_show_masks_secrets(run: CliRun) -> None:
    secret = "sk-very-secret-value"
    result = run(
        "config",
        "show",
        "--json",
        env={"NOTECITE_EMBEDDER__API_KEY": secret, "NOTECITE_SEARCH__K": "5"},
    )
    assert secret not in result.output
    shown = json.loads(result.stdout)
    assert shown["embedder"]["api_key"] == "**********"
    assert shown["embedder"]["name"] == "hash"
    assert shown["search"]["k"] == 5
    assert "hash" in shown["available_embedders"]
    assert "minilm" in shown["available_embedders"]
    assert shown["effective_llm"] == "extractive" or shown["effective_llm"] == "local"
    assert shown["config_file"] is None


def test_invalid_config_exits_1(run: CliRun, home: Path, tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text("[search]\nk = 5\nnot_a_setting = 1\n")
    result = run("--config", str(toml), "config", "show", code=1)
    assert "not_a_setting" in result.stderr


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        found.append((*prefix, name))
        if isinstance(command, click.Group):
            found.extend(_commands(command, (*prefix, name)))
    return found


COMMANDS = _commands(cli)


def test_the_command_tree() -> None:
    for expected in [("vault", "add"), ("vault", "list"), ("vault", "remove"), ("index",)]:
        assert expected in COMMANDS
    for expected in [("status",), ("search",), ("watch",), ("config", "show")]:
        assert expected in COMMANDS


@pytest.mark.parametrize("path", [(), *COMMANDS], ids=lambda p: " ".join(p) or "notecite")
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        sub = command.get_command(click.Context(command), name)
        assert sub is not None
        command = sub
    assert command.help, f"{path} has no help text"
    assert command.help.strip(), f"{path} has no help text"
    first_line = command.help.strip().split("\n")[0]
    assert " ".join(first_line.split()) in " ".join(result.output.split())
    for param in command.params:
        if isinstance(param, click.Option) and param.name not in {"help", "version"}:
            assert param.help, f"option {param.opts} of {path} has no help text"
