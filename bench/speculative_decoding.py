"""Does llama.cpp's speculative decoding from n-grams speed up the bundled model's answers?

llama.cpp (through ``xllamacpp``) can draft the next tokens from n-grams already in its
context (``ngram-simple``: the tokens after the last earlier match of the current n-gram;
``ngram-map-k``: the same through a map of the context's n-grams) and verify a draft in one
batch. Where an answer copies its notes, a draft is often right.

The answer prompts of ``--n`` answerable dev questions (drawn with seed 7, half per vault)
are made as ``notecite eval qa --llm local`` makes them, with a scripted model that records
them (the eval indexes under ``--home``). One copy of the bundled model is loaded per setting
(plain, and each ``--spec KIND:N:M``); each prompt is then written by every copy, in a random
order per prompt. Reported per setting: answer wall time p50, writing time per token p50
(llama.cpp's own timing), and how many answers are word for word the plain one's.

    python bench/speculative_decoding.py --home H --n 8 \\
        --spec NGRAM_SIMPLE:3:8 --spec NGRAM_MAP_K:3:8
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

import xllamacpp

from _measure import QA_DEV_SETS
from _recorded import recorded_asks
from notecite.config import Settings, load_settings
from notecite.evaluate.qa_data import QaItem, load_qa
from notecite.generate.base import GenerationRequest, GenerationUsage
from notecite.generate.local import LocalLLM


class SpeculativeLLM(LocalLLM):
    """The local provider with llama.cpp's n-gram speculation set at load (None: off)."""

    def __init__(self, *args: Any, spec: tuple[str, int, int] | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._spec = spec

    def _load(self, progress: Any = None) -> Any:
        if self._server is not None or self._spec is None:
            return super()._load(progress)
        kind, key, draft = self._spec
        plain = xllamacpp.CommonParams

        def with_speculation() -> Any:
            params = plain()
            spec = params.speculative
            spec.types = [
                getattr(xllamacpp.common_speculative_type, f"COMMON_SPECULATIVE_TYPE_{kind}")
            ]
            ngrams = spec.ngram_simple if kind == "NGRAM_SIMPLE" else spec.ngram_map_k
            ngrams.size_n, ngrams.size_m = key, draft
            spec.draft.n_min, spec.draft.n_max = 0, draft
            return params

        xllamacpp.CommonParams = with_speculation  # read once, by the load below
        try:
            return super()._load(progress)
        finally:
            xllamacpp.CommonParams = plain


def prompts(settings: Settings, n: int) -> list[tuple[str, GenerationRequest]]:
    """The answer requests of ``n`` answerable dev questions, half per vault (Foam first)."""
    seen: set[str] = set()
    items: list[QaItem] = []
    for path in QA_DEV_SETS:
        for item in load_qa(path):
            if item.split == "dev" and item.answerable and item.id not in seen:
                seen.add(item.id)
                items.append(item)
    random.Random(7).shuffle(items)
    chosen = [
        item
        for vault in ("foam", "dendron")
        for item in [i for i in items if i.vault == vault][: n // 2]
    ]
    asked = {a.item.id: a.request for a in recorded_asks(settings, chosen)}
    return [(i.id, request) for i in chosen if (request := asked[i.id]) is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--spec", action="append", default=[], help="KIND:KEY:DRAFT")
    args = parser.parse_args()

    settings = load_settings(home=args.home)
    asked = prompts(settings, args.n)
    print(f"{len(asked)} prompts", flush=True)
    generation = settings.generation
    model_dir = generation.model_dir or Path.home() / ".cache" / "notecite" / "models"
    specs: dict[str, tuple[str, int, int] | None] = {"plain": None}
    for spec in args.spec:
        kind, key, draft = spec.split(":")
        specs[spec] = (kind, int(key), int(draft))
    llms = {name: SpeculativeLLM(generation, model_dir, spec=s) for name, s in specs.items()}
    for llm in llms.values():
        llm.prepare()
    written: dict[str, dict[str, tuple[str, float, float]]] = {name: {} for name in specs}
    order = random.Random(0)
    for qid, request in asked:
        names = list(specs)
        order.shuffle(names)
        for name in names:
            usage = GenerationUsage()
            timed = GenerationRequest(
                messages=request.messages,
                temperature=request.temperature,
                max_tokens=request.max_tokens,
                stop=request.stop,
                usage=usage,
            )
            started = time.perf_counter()
            text = llms[name].generate(timed)
            wall = time.perf_counter() - started
            per_token = usage.output_ms / max(1, usage.output_tokens)
            written[name][qid] = (text, wall, per_token)
        print(qid, f"load {os.getloadavg()[0]:.1f}", flush=True)
    plain = written["plain"]
    for name, answers in written.items():
        walls = [wall for _, wall, _ in answers.values()]
        tokens = [ms for _, _, ms in answers.values()]
        same = sum(answers[q][0] == plain[q][0] for q in answers)
        print(
            f"{name}: answer p50 {statistics.median(walls):.2f} s, writing p50 "
            f"{statistics.median(tokens):.1f} ms/token, same answer as plain {same}/{len(answers)}"
        )


if __name__ == "__main__":
    main()
