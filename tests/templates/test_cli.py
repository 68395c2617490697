"""`notecite templates index|search|list|add` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from notecite.cli.main import cli
from notecite.templates import embed_text, parse_template
from notecite.testing import CliRun
from tests.templates.helpers import template_text, two_dirs, write_template


@pytest.fixture
def lib(tmp_path: Path) -> tuple[Path, Path]:
    return two_dirs(tmp_path / "lib")


def run(home: Path, *args: str, code: int = 0) -> Result:
    return CliRun(home)(*args, code=code)


def test_index_list_search_add(tmp_path: Path, lib: tuple[Path, Path]) -> None:
    home = tmp_path / "home"
    dirs = ["--dir", str(lib[0]), "--dir", str(lib[1])]
    assert "indexed 7 templates" in run(home, "templates", "index", *dirs).output
    assert json.loads(run(home, "templates", "index", *dirs, "--json").output) == {"indexed": 7}

    listed = json.loads(run(home, "templates", "list", "--json").output)["templates"]
    assert len(listed) == 7
    assert {"id", "name", "domain", "complexity", "methodology", "keywords", "description"} <= set(
        listed[0]
    )
    assert "filePath" in listed[0]
    assert (
        "fermi\tFermi estimate\tgeneral\tmoderate\tsequential"
        in run(home, "templates", "list").output
    )

    query = embed_text(parse_template(lib[0] / "fermi.md"))
    found = json.loads(run(home, "templates", "search", query, "-k", "2", "--json").output)
    assert found["matches"][0]["id"] == "fermi"
    assert found["matches"][0]["score"] == pytest.approx(1.0, abs=1e-5)
    assert len(found["matches"]) == 1  # the other templates are under 0.65

    text = run(home, "templates", "search", query, "--threshold", "-1", "--content").output
    assert text.startswith("[1] Fermi estimate (fermi)  score 1.000")
    assert "[3] " in text
    assert "[4] " not in text
    assert "# Fermi estimate" in text

    fallback = json.loads(run(home, "templates", "search", "zzz qqq", "--json").output)
    assert [(m["id"], m["score"]) for m in fallback["matches"]] == [("bot-chain-of-thought", 0.5)]

    path = write_template(tmp_path / "new", "kites", template_text("Kites", "Fly kites"))
    assert "added template kites (Kites)" in run(home, "templates", "add", str(path)).output
    path.write_text(template_text("Kites v2", "Fly kites higher"))
    assert "updated template kites (Kites v2)" in run(home, "templates", "add", str(path)).output
    assert len(json.loads(run(home, "templates", "list", "--json").output)["templates"]) == 8


def test_search_indexes_the_bundled_library_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    assert "no templates yet" in run(home, "templates", "list").output
    found = json.loads(run(home, "templates", "search", "prove it", "--json").output)
    assert found["matches"]
    assert len(json.loads(run(home, "templates", "list", "--json").output)["templates"]) == 12


def test_errors_are_one_line_with_exit_code_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bad = write_template(tmp_path, "bad", "---\nname: [\n---\n")
    result = run(home, "templates", "add", str(bad), code=1)
    assert result.output.startswith("error: ")
    assert "bad.md" in result.output
    both = run(home, "templates", "list", "--chroma-url", "http://x", "--chroma-path", "p", code=2)
    assert "not both" in both.output


@pytest.mark.usefixtures("without_chromadb")
def test_chroma_without_chromadb_says_how_to_install_it(
    tmp_path: Path, lib: tuple[Path, Path]
) -> None:
    result = run(
        tmp_path / "home",
        "templates",
        "index",
        "--dir",
        str(lib[0]),
        "--chroma-path",
        str(tmp_path / "chroma"),
        code=1,
    )
    assert "pip install 'notecite[chroma]'" in result.output


def test_every_command_has_help() -> None:
    for command in ("index", "search", "list", "add"):
        result = CliRunner().invoke(cli, ["templates", command, "--help"])
        assert result.exit_code == 0
        assert "--chroma-url" in result.output


def test_templates_section_of_the_settings_is_used(tmp_path: Path, lib: tuple[Path, Path]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[embedder]\nname = "hash"\n[templates]\ntemplate_dirs = ["{lib[0]}"]\ntop_k = 1\n'
    )
    indexed = CliRunner().invoke(cli, ["--home", str(home), "templates", "index"])
    assert indexed.exit_code == 0, indexed.output
    result = CliRunner().invoke(cli, ["--home", str(home), "templates", "list", "--json"])
    assert result.exit_code == 0, result.output
    ids = {t["id"] for t in json.loads(result.output)["templates"]}
    assert ids == {p.stem for p in lib[0].glob("*.md")}
