"""The README's Python example runs as written (with the test embedder and LLM)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.DOTALL)


def test_readme_python_example_runs(tmp_path: Path) -> None:
    (block,) = python_blocks((REPO / "README.md").read_text())
    script = block.replace('Path(".notecite-demo")', f"Path({str(tmp_path / 'home')!r})")
    env = {
        **os.environ,
        "NOTECITE_EMBEDDER__NAME": "hash",
        "NOTECITE_LLM": "extractive",
        "HOME": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "recipes/sourdough.md" in result.stdout
    assert "75%" in result.stdout


def test_readme_has_exactly_the_two_commands() -> None:
    text = (REPO / "README.md").read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert [c for c in commands if c] == ["make demo", "make test"]
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in ci
