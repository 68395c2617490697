"""MiniLM alone, two revisions, the same texts: where a first index's time goes.

A first index spends nearly all its time in ``Session.run`` (py-spy on a Dendron quarter:
95 %), so the embedder is the figure to compare. Each revision's ``src`` (``--base``: a git
revision, checked out with ``git archive``; and this tree) embeds the same texts, the chunk
texts of an index file sampled with a fixed seed, in a process of its own, one revision after
the other, ``--repeat`` times; each run reports wall and CPU seconds for ``embed_documents``
(after a warm-up call) and the process's peak RSS.

    python bench/embedder_revisions.py --db HOME/eval/qa-dendron.db --texts 800 --base 1f4110b
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _measure import REPO, chunk_texts, load, machine, median, source_at

_CHILD = """
import json, resource, sys, time
from notecite.embed.minilm import MiniLMEmbedder
texts = json.load(open(sys.argv[1]))
embedder = MiniLMEmbedder()
embedder.embed_documents(texts[:8])
wall, cpu = time.perf_counter(), time.process_time()
embedder.embed_documents(texts)
print(json.dumps({
    "wall_s": time.perf_counter() - wall,
    "cpu_s": time.process_time() - cpu,
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="an index file to take texts from")
    parser.add_argument("--texts", type=int, default=800)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", default="1f4110b", help="revision measured as 'before'")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory(prefix="notecite-embedder-") as scratch:
        texts_file = Path(scratch) / "texts.json"
        texts = chunk_texts(args.db, args.texts, args.seed)
        texts_file.write_text(json.dumps(texts))
        sources = {"before": source_at(args.base, Path(scratch)), "after": REPO / "src"}
        runs: dict[str, list[dict[str, float]]] = {label: [] for label in sources}
        for _ in range(args.repeat):
            for label, src in sources.items():
                env = {**os.environ, "PYTHONPATH": str(src)}
                out = subprocess.run(
                    [sys.executable, "-c", _CHILD, str(texts_file)],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=env,
                ).stdout
                result = json.loads(out.strip().splitlines()[-1])
                runs[label].append(result)
                print(f"{label}: {result}  ({load()})", flush=True)
    print(f"\n{len(texts)} chunk texts of {args.db.name}, {args.repeat} runs each, medians:")
    for label, results in runs.items():
        wall = median([r["wall_s"] for r in results])
        cpu = median([r["cpu_s"] for r in results])
        rss = median([r["peak_rss_mib"] for r in results])
        print(f"  {label:6}  wall {wall:6.1f} s  cpu {cpu:6.1f} s  peak RSS {rss:5.0f} MiB")
    before = median([r["wall_s"] for r in runs["before"]])
    after = median([r["wall_s"] for r in runs["after"]])
    print(f"  after / before (wall): {after / before:.2f}x")


if __name__ == "__main__":
    main()
