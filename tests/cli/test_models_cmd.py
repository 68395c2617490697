"""`notecite models prepare`, and the progress shown while a model is made ready."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from notecite.cli.models_cmd import ModelReport
from notecite.testing import CliRun


def test_a_provider_without_a_model_has_nothing_to_prepare(tmp_path: Path) -> None:
    result = CliRun(tmp_path / "home", llm="extractive")("models", "prepare")
    assert "extractive (extractive): nothing to prepare" in result.output


@pytest.mark.slow
def test_the_local_model_is_loaded_with_a_line_for_each_stage(tmp_path: Path) -> None:
    run = CliRun(tmp_path / "home", llm="local")
    result = run("models", "prepare", env={"NOTECITE_GENERATION__MODEL": "smollm2"})
    lines = result.output.splitlines()
    assert lines[0] == "loading the model into memory ..."
    assert lines[1].startswith("model ready (")
    assert lines[2] == "local (smollm2): assembled, verified and loadable"


def test_piped_assembly_progress_is_a_line_per_quarter() -> None:
    stream = io.StringIO()
    report = ModelReport(stream)
    total = 1000
    for done in range(0, total + 1, 50):
        report("assemble", done, total)
    report("load", 0, 1)
    report("load", 1, 1)
    lines = stream.getvalue().splitlines()
    assert lines[:5] == [
        f"assembling the bundled model (once): {share}%" for share in (0, 25, 50, 75, 100)
    ]
    assert lines[5] == "loading the model into memory ..."
    assert lines[6].startswith("model ready (")
    assert len(lines) == 7
