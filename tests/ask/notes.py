"""The test vaults of the ask tests: two vaults with nested and look-alike folders."""

from __future__ import annotations

from pathlib import Path

from notecite import Engine
from notecite.testing import write_files


def dated_note(tags: str, date: str, title: str, body: str) -> str:
    """A note with ``tags`` and ``date`` in its frontmatter, titled by its heading."""
    return f"---\ntags: [{tags}]\ndate: {date}\n---\n# {title}\n\n{body}\n"


WORK_VAULT = {
    "projects/work/apollo.md": (
        "# Apollo\n\n"
        "## Launch\n\n"
        "The Apollo launch is scheduled for March 14 at the Lisbon office.\n\n"
        "## Budget\n\n"
        "The Apollo budget is 40000 euros, approved by Maria in January.\n"
    ),
    "projects/work/apollo-risks.md": (
        "# Apollo risks\n\n"
        "## Weather\n\n"
        "A storm could delay the Apollo launch by a week.\n\n"
        "## Suppliers\n\n"
        "The Apollo launch needs the new antenna from the supplier.\n"
    ),
    "projects/work/hermes.md": (
        "# Hermes\n\n## Status\n\nHermes migration to Postgres is blocked on the vendor contract.\n"
    ),
    "projects-old/zephyr.md": (
        "# Zephyr\n\n"
        "## Launch\n\n"
        "The Zephyr launch was cancelled in 2019 after the Lisbon office closed.\n"
    ),
    "meetings/standup.md": (
        "# Standup\n\n"
        "## Decisions\n\n"
        "We moved the Apollo launch review to Thursday because Maria is travelling.\n"
    ),
    "readme.md": "Work notes of the Lisbon team.\n",
}

HOME_VAULT = {
    "meetings/retro.md": (
        "# Retro\n\n"
        "## Action items\n\n"
        "Buy a new espresso machine for the kitchen before the retro in June.\n"
    ),
    "projects/garden.md": (
        "# Garden\n\n"
        "## Tomatoes\n\n"
        "Water the tomatoes every morning and feed them compost on Sundays.\n"
    ),
}


VAULTS = {"v1": WORK_VAULT, "v2": HOME_VAULT}
"""The vaults of an engine of the ask tests: v1 (work) and v2 (home)."""


def build_vaults(engine: Engine, root: Path) -> None:
    """Write both vaults under ``root``, register them as v1 (work) and v2 (home), index."""
    engine.add_vault("v1", write_files(root / "work", WORK_VAULT))
    engine.add_vault("v2", write_files(root / "home", HOME_VAULT))
    engine.index()
