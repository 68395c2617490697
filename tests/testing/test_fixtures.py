"""The pytest plugin's fixtures, and the plugin loaded the ways a third party loads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from notecite.schemas.ask import AskRequest
from notecite.testing import (
    CliRun,
    DelegatingEmbedder,
    EngineFactory,
    ProviderServer,
    ScriptedLLM,
)
from tests.docs.test_readme import python_blocks
from tests.helpers import REPO_ROOT

NOTES = {
    "projects/apollo.md": "# Apollo\n\n## Launch\n\nThe Apollo launch is on March 14.\n",
    "garden.md": "# Garden\n\nTomatoes go in the south bed in May.\n",
}
QUESTION = "When is the Apollo launch?"


def test_engines_index_their_vaults_and_answer_with_the_given_llm(
    notecite_engines: EngineFactory, tmp_path: Path
) -> None:
    llm = ScriptedLLM("It is on March 14 [N1].")
    embedder = DelegatingEmbedder()
    engine = notecite_engines(vaults={"notes": NOTES}, llm=llm, embedder=embedder)
    response = engine.ask(AskRequest(question=QUESTION))

    assert response.answer == "It is on March 14 [N1]."
    assert [r.rel_path for r in response.references] == ["projects/apollo.md"]
    assert len(llm.answer_calls) == 1
    assert embedder.queries == [QUESTION]
    assert engine.settings.home == tmp_path / "home0"
    assert [v.name for v in engine.vaults()] == ["notes"]

    other = notecite_engines(llm="extractive", embedder="minilm", index=False)
    assert other.settings.home == tmp_path / "home1"
    assert (other.settings.llm, other.settings.embedder.name) == ("extractive", "minilm")
    assert other.vaults() == []


def test_engines_reach_a_provider_server(
    notecite_engines: EngineFactory, provider_server: ProviderServer
) -> None:
    provider_server.llm = ScriptedLLM("The Apollo launch is on March 14 [N1].")
    engine = notecite_engines(
        vaults={"notes": NOTES},
        llm="openai",
        embedder={"name": "openai", "base_url": provider_server.url + "/v1", "model": "e"},
        generation={"base_url": provider_server.url + "/v1", "model": "m", "retries": 0},
        ask={"folder_ranking": False, "auto_rag": "off"},
    )
    response = engine.ask(AskRequest(question=QUESTION))
    assert response.error is None
    assert response.answer == "The Apollo launch is on March 14 [N1]."
    assert len(provider_server.requests_to("embeddings")) >= 2  # the notes, then the question
    assert len(provider_server.requests_to("chat")) == 1


def test_the_engine_factory_closes_its_engines(tmp_path: Path) -> None:
    with EngineFactory(tmp_path) as factory:
        engine = factory(vaults={"notes": NOTES})
        assert factory.engines == [engine]
    assert factory.engines == []


def test_the_cli_runs_on_the_test_home(notecite_cli: CliRun, tmp_path: Path) -> None:
    assert notecite_cli.home == tmp_path / "home"
    vault = tmp_path / "vault"
    vault.mkdir()
    notecite_cli("vault", "add", "notes", str(vault))
    listed = json.loads(notecite_cli("vault", "list", "--json").stdout)
    assert [v["name"] for v in listed["vaults"]] == ["notes"]
    notecite_cli("vault", "add", "notes", str(vault), code=1)  # a duplicate name
    with pytest.raises(AssertionError, match=r"exited 1, not 0"):
        notecite_cli("vault", "add", "notes", str(vault))
    assert notecite_cli("no-such-command", code=None).exit_code == 2


THIRD_PARTY_TEST = """
import json

from notecite.schemas.ask import AskRequest


def test_fixtures(notecite_engines, notecite_cli, provider_server):
    engine = notecite_engines(vaults={"notes": {"a.md": "# A\\n\\nThe launch is on March 14.\\n"}})
    assert engine.ask(AskRequest(question="When is the launch?")).references
    assert json.loads(notecite_cli("vault", "list", "--json").stdout) == {"vaults": []}
    assert provider_server.url.startswith("http://127.0.0.1:")
"""


@pytest.mark.parametrize("loaded_by", ["pytest_plugins", "entry point", "both", "-p"])
def test_a_third_party_loads_the_plugin(tmp_path: Path, loaded_by: str) -> None:
    """The docs' example and a test of every fixture pass with the plugin loaded through
    ``pytest_plugins``, the ``pytest11`` entry point of pyproject.toml (an
    installed distribution is stood in for by a dist-info folder on the path), both at once
    (the entry point is named after the module, so the second load is a no-op), or ``-p``."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_third_party.py").write_text(THIRD_PARTY_TEST)
    docs = (REPO_ROOT / "docs" / "testing.md").read_text()
    example = next(block for block in python_blocks(docs) if "def test_" in block)
    (project / "test_docs_example.py").write_text(example)
    if loaded_by in ("pytest_plugins", "both"):
        (project / "conftest.py").write_text('pytest_plugins = ["notecite.testing.fixtures"]\n')
    site = tmp_path / "site"
    if loaded_by in ("entry point", "both"):
        dist = site / "notecite_plugin_standin-0.0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: notecite-plugin-standin\nVersion: 0.0\n"
        )
        (dist / "entry_points.txt").write_text(
            "[pytest11]\nnotecite.testing.fixtures = notecite.testing.fixtures\n"
        )
    args = ["-p", "notecite.testing.fixtures"] if loaded_by == "-p" else []
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), str(site)]),
        "HOME": str(tmp_path / "user"),
    }
    env.pop("PYTEST_ADDOPTS", None)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(project)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout
