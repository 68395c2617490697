"""The shipped library: 12 templates in data/ and the same files bundled in the package."""

from __future__ import annotations

from pathlib import Path

from notecite.templates import load_templates, resolve_template_dirs
from notecite.templates.library import BUNDLED_LIBRARY
from tests.helpers import REPO_ROOT

SHIPPED = {
    "bot-buffer": {
        "bot-analogical-reasoning",
        "bot-chain-of-thought",
        "bot-divide-and-conquer",
        "bot-working-backwards",
    },
    "templates": {
        "fermi-estimation",
        "first-principles",
        "hypothesis-testing",
        "pre-mortem",
        "proof-by-contradiction",
        "root-cause-analysis",
        "socratic-questioning",
        "trade-off-matrix",
    },
}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def test_data_dirs_and_the_bundled_copy_are_identical() -> None:
    data = _files(REPO_ROOT / "data")
    assert data == _files(BUNDLED_LIBRARY)
    assert len(data) == 12


def test_every_shipped_template_is_complete() -> None:
    for folder, ids in SHIPPED.items():
        templates = load_templates([BUNDLED_LIBRARY / folder])
        assert {t.id for t in templates} == ids
        for t in templates:
            assert t.name, t.id
            assert t.description, t.id
            assert len(t.keywords) >= 4, t.id
            front = Path(t.file_path).read_text().split("---")[1]
            for key in ("domain:", "complexity:", "methodology:", "keywords:"):
                assert key in front, (t.id, key)
            assert "## Steps" in t.content, t.id
            assert "## Pitfalls" in t.content, t.id
            assert not t.content.startswith("---")


def test_default_dirs_resolve_to_the_working_directory_or_the_bundled_copy(
    tmp_path: Path,
) -> None:
    defaults = [Path("data/bot-buffer"), Path("data/templates")]
    assert resolve_template_dirs(defaults, REPO_ROOT) == [
        REPO_ROOT / "data" / "bot-buffer",
        REPO_ROOT / "data" / "templates",
    ]
    assert resolve_template_dirs(defaults, tmp_path) == [
        BUNDLED_LIBRARY / "bot-buffer",
        BUNDLED_LIBRARY / "templates",
    ]
    # A folder that is not a default dir never falls back.
    assert resolve_template_dirs([Path("mine")], tmp_path) == [tmp_path / "mine"]
