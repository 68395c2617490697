"""The vendored browser libraries are the pinned npm files, byte for byte, with their licences
(web/static/vendor/manifest.json)."""

from __future__ import annotations

import hashlib
import json
from importlib.resources import files
from pathlib import Path

import pytest

VENDOR = Path(str(files("notecite.web"))) / "static" / "vendor"
MANIFEST = json.loads((VENDOR / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("library", sorted(MANIFEST))
def test_each_vendored_file_matches_its_pinned_hash_and_keeps_its_licence(library: str) -> None:
    entry = MANIFEST[library]
    folder = VENDOR / library
    assert sorted(p.name for p in folder.iterdir()) == sorted([*entry["files"], *entry["licenses"]])
    for name, digest in entry["files"].items():
        data = (folder / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, f"{library}/{name} was changed"
        assert entry["version"].encode() in data[:400]  # the banner names the pinned version
    for licence in entry["licenses"]:
        assert (folder / licence).stat().st_size > 1000
    assert entry["npm_integrity"].startswith("sha512-")


def test_the_readme_names_the_pinned_versions() -> None:
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    for library, entry in MANIFEST.items():
        assert f"| {entry['version']} |" in readme, library


def test_the_page_loads_exactly_the_vendored_files() -> None:
    base = (VENDOR.parents[1] / "templates" / "base.html").read_text(encoding="utf-8")
    for library, entry in MANIFEST.items():
        for name in entry["files"]:
            assert f'src="/static/vendor/{library}/{name}"' in base
