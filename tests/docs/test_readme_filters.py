"""The README's filter examples run on the sample vault and find what the filters say."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from notecite.testing import CliRun

REPO = Path(__file__).resolve().parents[2]
EXPECTED = {
    "tags=atlas type=journal": {"journal/2025-03-11.md", "journal/2025-04-14-launch-day.md"},
    "tags in [restic, sourdough]": {"howto/restic-home-backup.md", "recipes/sourdough.md"},
    "type=kb and status!=active": {"recipes/sourdough.md", "recipes/weeknight-dal.md"},
    "tags^=garden-app type!=meeting": {
        "projects/garden-app/garden-app.md",
        "projects/garden-app/roadmap.md",
    },
    "has:status type=kb": {
        "howto/new-laptop-setup.md",
        "howto/restic-home-backup.md",
        "projects/atlas/architecture.md",
    },
    "date>=2025-01-01": {
        "journal/2025-03-11.md",
        "journal/2025-04-14-launch-day.md",
        "meetings/2025/2025-02-05-garden-app-sync.md",
        "meetings/2025/2025-03-10-atlas-standup.md",
        "meetings/2025/2025-04-22-atlas-launch-retro.md",
    },
    "created<2024-09-18 type=profile": {"people/priya-raman.md"},
}


def commands() -> list[list[str]]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Filtering by frontmatter", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    assert block is not None
    return [shlex.split(line) for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    invoke = CliRun(tmp_path_factory.mktemp("home"), llm="extractive")
    invoke("index", str(REPO / "examples" / "notes"), "--vault", "notes")
    return invoke


def filters_of(args: list[str]) -> str:
    return " ".join(args[i + 1] for i, a in enumerate(args) if a == "--filter")


def test_every_search_example_finds_exactly_its_notes(run: CliRun) -> None:
    searches = [c for c in commands() if c[:2] == ["notecite", "search"]]
    assert sorted(filters_of(c) for c in searches) == sorted(EXPECTED)
    for command in searches:
        result = run(*command[1:], "--json", "-k", "200")
        found = {r["rel_path"] for r in json.loads(result.stdout)["results"]}
        assert found == EXPECTED[filters_of(command)], command


def test_the_ask_examples_take_their_filters_from_the_question(run: CliRun) -> None:
    asks = [c for c in commands() if c[:2] == ["notecite", "ask"]]
    assert len(asks) == 2
    for command in asks:
        result = run(*command[1:], "--debug")
        assert re.search(r"^filters: (#atlas|type:kb)$", result.output, flags=re.MULTILINE), (
            result.output
        )
