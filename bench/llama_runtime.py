"""The bundled model's prompt-read and write rates under llama.cpp's runtime settings, on a
quiet machine and beside CPU-bound work.

Two settings are compared, each in a process of its own (OpenMP reads its environment once,
when it loads):

- how llama.cpp's OpenMP threads wait at a barrier (``generation.spin_wait``): ``passive``
  (``OMP_WAIT_POLICY=passive``: sleep at once) or ``spin 1000`` (``GOMP_SPINCOUNT=1000``);
- whether the weights are repacked at load for the CPU's matrix kernels
  (``generation.repack_weights``).

Each configuration loads the model through the product's own ``LocalLLM`` and makes
``--probes`` requests of about 400 uncached prompt tokens and 48 tokens out
(``answer_latency.model_rates``); llama.cpp's own timings give the rates. With ``--busy N``
the same runs are repeated beside N processes that spin in a loop (what an index run or a
test suite does to the two cores).

    python bench/llama_runtime.py --model-dir ~/.notecite/models --busy 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _measure import REPO, machine
from answer_latency import model_rates
from notecite.config import GenerationSettings
from notecite.generate.local import LocalLLM

CONFIGS: dict[str, dict[str, bool]] = {
    "passive, repacked": {"spin_wait": False, "repack_weights": True},
    "spin 1000, repacked": {"spin_wait": True, "repack_weights": True},
    "passive, not repacked": {"spin_wait": False, "repack_weights": False},
    "spin 1000, not repacked (default)": {"spin_wait": True, "repack_weights": False},
}

SPIN = "import time\nend = time.time() + {seconds}\nwhile time.time() < end:\n    pass\n"


def child(model_dir: Path, name: str, probes: int) -> None:
    """Measure configuration ``name`` in this process and print its rates as JSON."""
    model = LocalLLM(GenerationSettings.model_validate(CONFIGS[name]), model_dir)
    model.prepare()
    print(json.dumps(model_rates(model, probes)), flush=True)


def measure(name: str, model_dir: Path, probes: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    command = [sys.executable, __file__, "--child", name, "--model-dir", str(model_dir)]
    command += ["--probes", str(probes)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    rates: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return rates


def run_all(model_dir: Path, probes: int, busy: int) -> dict[str, dict[str, float]]:
    spinners = [
        subprocess.Popen([sys.executable, "-c", SPIN.format(seconds=3600)]) for _ in range(busy)
    ]
    try:
        time.sleep(1 if busy else 0)
        return {name: measure(name, model_dir, probes) for name in CONFIGS}
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", type=Path, default=Path.home() / ".notecite" / "models")
    parser.add_argument("--probes", type=int, default=3)
    parser.add_argument("--busy", type=int, default=2, help="spinning processes beside (0: none)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "llama_runtime.json")
    parser.add_argument("--child", choices=CONFIGS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.model_dir, args.child, args.probes)
        return
    report: dict[str, Any] = {"machine": machine(), "load_before": os.getloadavg()}
    report["quiet"] = run_all(args.model_dir, args.probes, 0)
    if args.busy:
        report[f"beside {args.busy} spinning processes"] = run_all(
            args.model_dir, args.probes, args.busy
        )
    report["load_after"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(report["machine"])
    for condition, rows in report.items():
        if not isinstance(rows, dict):
            continue
        print(f"\n{condition}: prompt read / write, tokens/s (median of {args.probes})")
        for name, rates in rows.items():
            print(
                f"  {name:<34} {rates.get('prompt_tokens_per_s', 0):6.1f} "
                f"{rates.get('output_tokens_per_s', 0):6.1f}"
            )
    print("load before/after:", report["load_before"], report["load_after"])


if __name__ == "__main__":
    main()
