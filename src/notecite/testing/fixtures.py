"""The pytest plugin of notecite: engine and command-line fixtures.

Load it from a ``conftest.py`` with ``pytest_plugins = ["notecite.testing.fixtures"]``; where
notecite is installed, the ``pytest11`` entry point of the same name loads it for every test
run (``-p no:notecite.testing.fixtures`` turns it off).

Fixtures:
    notecite_engines: an :class:`~notecite.testing.engines.EngineFactory` under the test's
        ``tmp_path``; every engine it made is closed after the test.
    notecite_cli: a :class:`~notecite.testing.cli.CliRun` on ``tmp_path / "home"`` with the
        ``hash`` embedder.
    provider_server: a running :class:`~notecite.testing.server.ProviderServer` with its
        defaults (a scripted LLM, the 64-d ``hash`` embedder).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from notecite.testing.cli import CliRun
from notecite.testing.engines import EngineFactory
from notecite.testing.server import ProviderServer


@pytest.fixture
def notecite_engines(tmp_path: Path) -> Iterator[EngineFactory]:
    """``notecite_engines(vaults={"notes": {...}}, llm=..., **settings) -> Engine``."""
    with EngineFactory(tmp_path) as factory:
        yield factory


@pytest.fixture
def notecite_cli(tmp_path: Path) -> CliRun:
    """``notecite_cli("index", path, "--vault", "notes")`` on ``tmp_path / "home"``."""
    return CliRun(tmp_path / "home")


@pytest.fixture
def provider_server() -> Iterator[ProviderServer]:
    """An OpenAI/Ollama-compatible server on 127.0.0.1 (``.url``, ``.received``, ``.fail``)."""
    with ProviderServer() as server:
        yield server
