"""A small vault written by the chat and API tests."""

from __future__ import annotations

from pathlib import Path

from notecite import Engine
from notecite.testing import write_files

NOTES = {
    "projects/apollo.md": (
        "---\ntitle: Apollo\ncreated: 2025-01-10\n---\n"
        "# Apollo\n\n"
        "## Launch\n\n"
        "The Apollo launch is scheduled for March 14 at the Lisbon office.\n\n"
        "## Budget\n\n"
        "The Apollo budget is 40000 euros, approved by Maria in January.\n"
    ),
    "projects/hermes.md": (
        "# Hermes\n\n## Status\n\nHermes migration to Postgres is blocked on the vendor contract.\n"
    ),
    "home/garden.md": (
        "# Garden\n\n"
        "## Tomatoes\n\n"
        "Water the tomatoes every morning and feed them compost on Sundays.\n"
    ),
}


def write_notes(root: Path) -> Path:
    """Write the vault under ``root`` and return it."""
    return write_files(root, NOTES)


def index_notes(engine: Engine, root: Path, name: str = "notes") -> None:
    """Write the vault, register it as ``name`` and index it."""
    engine.add_vault(name, write_notes(root))
    engine.index()
