"""`notecite serve` loads the model before it answers, so the first question does not wait."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from notecite import load_settings
from notecite.api import create_app
from notecite.config import Settings
from tests.api.test_socket import serving


def local_settings(tmp_path: Path, preload: bool) -> Settings:
    return load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="local",
        generation={"model": "smollm2", "threads": 2, "max_tokens": 8, "context_size": 1024},
        server={"preload_llm": preload},
    )


@pytest.mark.slow
def test_the_model_is_loaded_before_the_server_answers(tmp_path: Path) -> None:
    stages: list[tuple[str, int, int]] = []
    settings = local_settings(tmp_path, preload=True)

    def record(stage: str, done: int, total: int) -> None:
        stages.append((stage, done, total))

    app = create_app(settings, model_progress=record)
    with serving(app, start_s=120) as url, httpx.Client(base_url=url, timeout=30) as http:
        # the very first request already finds the model in memory
        assert http.get("/health").json() == {
            "status": "ok",
            "version": http.get("/health").json()["version"],
            "llm": "local",
            "model_ready": True,
        }
    assert stages == [("load", 0, 1), ("load", 1, 1)]


@pytest.mark.slow
def test_without_preload_the_model_waits_for_its_first_question(tmp_path: Path) -> None:
    app = create_app(local_settings(tmp_path, preload=False))
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/health").json()["model_ready"] is False


def test_a_provider_without_a_model_reports_none(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "home", embedder={"name": "hash"}, llm="extractive")
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=30) as http:
        health = http.get("/health").json()
    assert (health["llm"], health["model_ready"]) == ("extractive", None)
