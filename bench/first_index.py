"""A first `notecite index` as a new user runs it, before and after a change, in one script.

Each revision's source (``--base``: a git revision, checked out to a temp dir with
``git archive``; ``--after``: this tree) runs ``notecite index VAULT`` as a real process, piped,
on a fresh home, with the bundled MiniLM. While it runs, this script polls the index file
read-only every 0.2 s and records when a keyword search (FTS5, ``--term``) first finds a note
and when every note of the vault is findable by keyword; at the end, the wall time, the exit
code and the peak RSS of the process (``wait4``). ``--keyword-only`` stops each run (SIGINT,
then SIGKILL for a revision that does not stop) once every note is findable or after
``--limit-s``, for vaults whose whole index takes too long to repeat. When both revisions
ran to the end, the vectors they stored (chunks and sentence windows) are compared by content
hash: the same texts embedded, and the largest difference between two vectors of one text.

    python bench/first_index.py --vault ../shared/data/vault-foam/docs
    python bench/first_index.py --vault ../shared/data/vault-dendron/vault --keyword-only
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _measure import REPO, machine, source_at


def _probe(db: Path, term: str) -> tuple[bool, int]:
    """(a keyword search for ``term`` finds a chunk, notes findable by keyword)."""
    if not db.exists():
        return False, 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
        try:
            hit = conn.execute(
                "SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (f'"{term}"',)
            ).fetchone()
            # both revisions write a note's row with its chunks, in one transaction
            notes = conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:  # the schema is not there yet
        return False, 0
    return hit is not None, int(notes)


def measure(src: Path, vault: Path, home: Path, args: argparse.Namespace) -> dict[str, object]:
    notes_total = sum(1 for p in vault.rglob("*") if p.suffix in {".md", ".txt", ".html"})
    # a note is findable by keyword once its row is written (failed files included: rare)
    env = {**os.environ, "PYTHONPATH": str(src)}
    env = {k: v for k, v in env.items() if not k.startswith("NOTECITE_")}
    env["PYTHONPATH"] = str(src)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "notecite", "--home", str(home), "index", str(vault)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    first_hit = all_findable = None
    stopped, kill_at = False, float("inf")
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)  # keeps the child's own rusage
        if pid:
            break
        elapsed = time.perf_counter() - started
        hit, notes = _probe(home / "notecite.db", args.term)
        if hit and first_hit is None:
            first_hit = elapsed
        if notes >= notes_total and all_findable is None:
            all_findable = elapsed
        done = all_findable is not None or elapsed > args.limit_s
        if args.keyword_only and done and not stopped:
            process.send_signal(signal.SIGINT)
            stopped = True
            kill_at = time.perf_counter() + 60
        if stopped and time.perf_counter() > kill_at:
            process.kill()
        time.sleep(0.2)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    return {
        "wall_s": round(wall, 1),
        "first_keyword_hit_s": None if first_hit is None else round(first_hit, 1),
        "all_notes_findable_s": None if all_findable is None else round(all_findable, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024),
        "exit": process.returncode,
        "stopped": stopped,
    }


def _vectors(db: Path, table: str) -> dict[str, bytes]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {
            str(h): bytes(v) for h, v in conn.execute(f"SELECT content_hash, vector FROM {table}")
        }
    finally:
        conn.close()


def compare_vectors(before: Path, after: Path) -> str:
    """How the two runs' stored vectors differ, per table."""
    lines = []
    for table in ("embeddings", "sentence_embeddings"):
        a, b = _vectors(before / "notecite.db", table), _vectors(after / "notecite.db", table)
        common = sorted(set(a) & set(b))
        diff = max(
            (
                float(
                    np.abs(np.frombuffer(a[h], np.float32) - np.frombuffer(b[h], np.float32)).max()
                )
                for h in common
            ),
            default=0.0,
        )
        lines.append(
            f"{table}: before {len(a)}, after {len(b)}, same texts {len(common)}, "
            f"largest difference {diff:.2e}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--base", default="1f4110b", help="revision measured as 'before'")
    parser.add_argument("--term", default="the", help="a word of the vault (keyword probe)")
    parser.add_argument("--keyword-only", action="store_true")
    parser.add_argument("--limit-s", type=float, default=600.0)
    parser.add_argument("--only", choices=["before", "after"], help="run one revision")
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory(prefix="notecite-first-index-") as scratch:
        before = source_at(args.base, Path(scratch)) if args.only != "after" else REPO / "src"
        sources = {"before": before, "after": REPO / "src"}
        finished = []
        for label, src in sources.items():
            if args.only and label != args.only:
                continue
            home = Path(scratch) / f"home-{label}"
            print(f"{label}: starting (load average {os.getloadavg()[0]:.1f})", flush=True)
            result = measure(src, args.vault.resolve(), home, args)
            print(f"{label}: {result}  (load average {os.getloadavg()[0]:.1f})", flush=True)
            if result["exit"] == 0 and not result["stopped"]:
                finished.append(home)
        if len(finished) == 2:
            print(compare_vectors(*finished), flush=True)


if __name__ == "__main__":
    main()
