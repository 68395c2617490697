"""What `notecite index` prints while it runs when its output is piped: plain progress lines
with rates and the time left, at the interval asked for."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.reliability.vaults import clean_env, notecite_command, write_vault

KEYWORD_LINE = re.compile(
    r"^indexing: keyword notes (\d+)/(\d+) \((\d+\.\d) notes/s(, .+ left)?\)$"
)
VECTORS_LINE = re.compile(
    r"^indexing: vectors chunks (\d+)/(\d+) \((\d+\.\d) chunks/s(, .+ left)?\)$"
)


def test_a_piped_index_prints_progress_lines_while_it_runs(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault, 200, seed=7)
    process = subprocess.Popen(
        notecite_command(tmp_path / "home", "index", str(vault), "--progress-every", "0.05"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    assert process.stderr is not None
    first = process.stderr.readline().rstrip("\n")
    running = process.poll() is None  # the first line comes at the first note of 200
    out, rest = process.communicate(timeout=120)
    assert process.returncode == 0, rest
    assert running
    lines = [first, *rest.splitlines()]
    keyword = [m for m in map(KEYWORD_LINE.match, lines) if m]
    vectors = [m for m in map(VECTORS_LINE.match, lines) if m]
    assert len(keyword) + len(vectors) == len(lines), lines
    assert keyword[0].group(1, 2) == ("1", "200")
    assert keyword[-1].group(1, 2) == ("200", "200")
    assert vectors[-1].group(1) == vectors[-1].group(2)
    assert float(vectors[-1].group(3)) > 0
    assert "vault: added 200" in out
