"""The reranker modules import in any order: the registry has its own module, so no cycle."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import notecite
from tests.import_graph import import_cycles

SRC = Path(notecite.__file__).resolve().parents[1]
RERANKERS = "notecite.retrieve.rerankers"

FIRST_IMPORT = """
import importlib, sys
importlib.import_module(sys.argv[1])
from notecite.retrieve.rerankers import RerankerContext, create_reranker
from notecite.config import RetrievalSettings
from pathlib import Path
reranker = create_reranker("e5", RerankerContext(RetrievalSettings(), Path(sys.argv[2])))
print(type(reranker).__name__)
"""


@pytest.mark.parametrize("module", ["registry", "base", "e5", "cross_encoder"])
def test_each_reranker_module_imports_first_in_a_fresh_interpreter(
    module: str, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORT, f"{RERANKERS}.{module}", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "E5Reranker"


def test_the_reranker_package_has_no_import_cycle() -> None:
    assert import_cycles(SRC / "notecite" / "retrieve" / "rerankers", RERANKERS) == []
