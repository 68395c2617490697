"""Shared by the benchmark scripts: order statistics and a one-line description of the machine."""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# the vault QA sets whose dev items are tuned on (bench/qa/README.md)
QA_DEV_SETS = tuple(
    REPO / "bench" / "qa" / name
    for name in (
        "vaults.jsonl",
        "vaults-dev2.jsonl",
        "vaults-dev3.jsonl",
        "vaults-dev4.jsonl",
        "vaults-dev5.jsonl",
        "vaults-dev6.jsonl",
        "vaults-dev7.jsonl",
        "vaults-dev8.jsonl",
        "vaults-dev9.jsonl",
        "vaults-dev10.jsonl",
        "vaults-dev11.jsonl",
        "personal-dev.jsonl",
        "researcher-dev.jsonl",
    )
)


def median(values: Sequence[float]) -> float:
    """The median (mean of the middle two for an even count)."""
    return statistics.median(values)


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct`` percentile by linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = (len(ordered) - 1) * pct / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ms(seconds: float) -> str:
    """Seconds as milliseconds with two decimals."""
    return f"{seconds * 1000:.2f} ms"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "src"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out + ("+dirty-src" if dirty else "")


def machine() -> str:
    """Date, cores, CPU, versions and git revision, for the header of every report."""
    import numpy

    import notecite

    try:
        import onnxruntime

        ort = onnxruntime.__version__
    except ImportError:
        ort = "absent"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {cores} cores ({_cpu_model()}); "
        f"Python {platform.python_version()}, numpy {numpy.__version__}, "
        f"onnxruntime {ort}, SQLite {sqlite3.sqlite_version}; git {_git_revision()}, "
        f"notecite from {Path(notecite.__file__).parent}; "
        f"{load()}"
    )


def load() -> str:
    """The load average, since other work on a 2-core machine skews every figure."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def source_at(revision: str, scratch: Path) -> Path:
    """The ``src`` folder of ``revision``, checked out under ``scratch`` with ``git archive``
    (for a "before" run beside this tree's "after")."""
    target = scratch / f"src-{revision[:12]}"
    target.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target / "src"


def chunk_texts(db: Path, count: int, seed: int) -> list[str]:
    """``count`` chunk texts of an index file, shuffled with ``seed`` (all when fewer)."""
    import random

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        texts = [str(row[0]) for row in conn.execute("SELECT text FROM chunks ORDER BY id")]
    finally:
        conn.close()
    random.Random(seed).shuffle(texts)
    return texts[:count]
