"""Run every benchmark with its default sizes, one after the other (never in parallel).

python bench/run_all.py            # about 10 minutes on 2 cores once the caches are warm
python bench/run_all.py --only reindex search_latency
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

BENCHMARKS = ("index_throughput", "reindex", "search_latency")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS))
    args = parser.parse_args()
    here = Path(__file__).resolve().parent
    failed = []
    for name in args.only:
        print(f"\n=== {name} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(here / f"{name}.py")])
        print(f"=== {name}: exit {code} after {time.perf_counter() - start:.0f} s ===", flush=True)
        if code:
            failed.append(name)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
