"""Answer latency on the vault QA set: time to first text and to the full answer, with the
model's own prompt and generation rates measured in the same run.

For each context mode (``--context evidence`` and/or ``chunks``, ``ask.context``), the
selected questions of ``--data`` are asked through ``notecite eval qa``'s runner
(``Engine.ask`` streamed, as a terminal shows it; the model is loaded before the first
question, as ``notecite serve`` does). Per question it records the wall time, the time to
the first text the person sees (retrieval plus the model's first token), the prompt tokens
the model read (and how many it reused from its cache) and the tokens it wrote.

Before and after the questions it measures the model itself: ``--probes`` fixed requests of
about 400 prompt tokens (a fresh prefix each, so nothing is cached) and 48 tokens out, whose
llama.cpp timings give the raw prompt-read and write rates on this machine at this moment.
Each question's time to first text is then also given as a ratio to what those rates allow
for its uncached prompt (1.0: no time spent outside the model).

Quality per context mode comes from the same answers (gold note cited, must-contain, wrongly
abstained, near-miss and off-topic abstained), so the two modes are compared side by side.

    python bench/answer_latency.py --home /tmp/qa-home --split test --limit 36 \\
        --context evidence --context chunks --out bench/out/answer_latency.json
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import string
from dataclasses import asdict
from pathlib import Path
from typing import Any

from _measure import REPO, machine, median, percentile
from notecite.config import Settings, load_settings
from notecite.engine import Engine
from notecite.evaluate.qa import QaRecord, QaRun, run_qa
from notecite.generate.base import LLM, ChatMessage, GenerationRequest, GenerationUsage

DATA = REPO / "bench" / "qa" / "vaults.jsonl"
PROBE_WORDS = 300  # about 400 tokens of the model's tokenizer
PROBE_OUT = 48


def probe_rates(engine: Engine, llm: str | None, probes: int) -> dict[str, float]:
    """The model's raw prompt-read and write rates (tokens/s), median of ``probes`` runs."""
    engine.prepare_llm(llm)
    return model_rates(engine.llm(llm), probes)


def model_rates(model: LLM, probes: int) -> dict[str, float]:
    """``model``'s prompt-read and write rates (tokens/s), median of ``probes`` requests of
    about 400 uncached prompt tokens and ``PROBE_OUT`` tokens out."""
    rng = random.Random(0)
    read: list[float] = []
    write: list[float] = []
    for _ in range(probes):
        nonce = "".join(rng.choices(string.ascii_lowercase, k=12))  # defeats the prompt cache
        words = " ".join(
            rng.choice(("note", "graph", "link", "daily", "tag")) for _ in range(PROBE_WORDS)
        )
        usage = GenerationUsage()
        request = GenerationRequest(
            messages=(
                ChatMessage("system", f"Session {nonce}. Summarise the words you are given."),
                ChatMessage("user", words),
            ),
            temperature=0.0,
            max_tokens=PROBE_OUT,
            usage=usage,
        )
        "".join(model.stream(request))
        if usage.prompt_ms and usage.output_ms:
            read.append((usage.prompt_tokens - usage.cached_tokens) / usage.prompt_ms * 1000)
            write.append(usage.output_tokens / usage.output_ms * 1000)
    if not read:
        return {}
    return {"prompt_tokens_per_s": median(read), "output_tokens_per_s": median(write)}


def first_text_ms(record: QaRecord) -> float | None:
    """From the question to the first text a person sees (None: the model was not called)."""
    timings = record.timings_ms
    if timings.get("first_text") is not None:  # measured by the pipeline itself
        return float(timings["first_text"])
    first = timings.get("first_token")
    if first is None:
        return None
    # older records: everything but the model call, plus its first token (this also counts
    # the checks that run after the answer, so it overstates the wait a little)
    return float(timings["total"]) - float(timings["generate"]) + float(first)


def summarise(run: QaRun, rates: dict[str, float]) -> dict[str, Any]:
    """Latency and token figures over the questions the model answered, and quality."""
    modelled = [r for r in run.records if r.generation.get("prompt_tokens")]
    first = [v for r in modelled if (v := first_text_ms(r)) is not None]
    total = [r.wall_ms for r in modelled]
    everything = [r.wall_ms for r in run.records]
    prompt = [r.generation["prompt_tokens"] for r in modelled]
    uncached = [r.generation["prompt_tokens"] - r.generation["cached_tokens"] for r in modelled]
    out = [r.generation["output_tokens"] for r in modelled]
    ratios = []
    if rates:
        for record in modelled:
            seen = first_text_ms(record)
            read = record.generation["prompt_tokens"] - record.generation["cached_tokens"]
            allowed = read / rates["prompt_tokens_per_s"] * 1000
            if seen is not None and allowed > 0:
                ratios.append(seen / allowed)

    def stats(values: list[float]) -> dict[str, float] | None:
        if not values:
            return None
        return {
            "p50": round(median(values), 1),
            "p95": round(percentile(values, 95), 1),
            "max": round(max(values), 1),
        }

    return {
        "questions": len(run.records),
        "model_called": len(modelled),
        "first_text_ms": stats(first),
        "answer_ms": stats(total),
        "all_questions_ms": stats(everything),
        "prompt_tokens": stats([float(v) for v in prompt]),
        "uncached_prompt_tokens": stats([float(v) for v in uncached]),
        "output_tokens": stats([float(v) for v in out]),
        "first_text_over_model_allowance": stats(ratios),
        "quality": [asdict(group) for group in run.report.groups],
    }


def settings_for(home: Path, context: str, llm: str | None) -> Settings:
    overrides: dict[str, Any] = {"ask": {"context": context}}
    if llm:
        overrides["llm"] = llm
    return load_settings(home=home, **overrides)


def print_progress(mode: str, line: str) -> None:
    print(f"[{mode}] {line}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="notecite home (eval stores)")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--split", default="test", choices=("dev", "test", "all"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--llm", default="local")
    parser.add_argument("--context", action="append", choices=("evidence", "chunks"))
    parser.add_argument("--probes", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "answer_latency.json")
    args = parser.parse_args()
    contexts = args.context or ["evidence"]
    report: dict[str, Any] = {
        "machine": machine(),
        "data": str(args.data),
        "split": args.split,
        "limit": args.limit,
        "llm": args.llm,
        "load_before": os.getloadavg(),
        "modes": {},
    }
    with Engine(settings_for(args.home, contexts[0], args.llm)) as engine:
        report["rates_before"] = probe_rates(engine, args.llm, args.probes)
    print("model rates before:", report["rates_before"], flush=True)
    for context in contexts:
        run = run_qa(
            settings_for(args.home, context, args.llm),
            args.data,
            llm=args.llm,
            split=args.split,
            limit=args.limit,
            progress=functools.partial(print_progress, context),
        )
        report["modes"][context] = summarise(run, report["rates_before"])
        records = args.out.with_name(f"{args.out.stem}-{context}.jsonl")
        records.parent.mkdir(parents=True, exist_ok=True)
        records.write_text("".join(json.dumps(asdict(r)) + "\n" for r in run.records))
    with Engine(settings_for(args.home, contexts[0], args.llm)) as engine:
        report["rates_after"] = probe_rates(engine, args.llm, args.probes)
    report["load_after"] = os.getloadavg()
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for context, figures in report["modes"].items():
        print(
            f"\n== {context}: {figures['model_called']} of {figures['questions']} reached the model"
        )
        for key in (
            "first_text_ms",
            "answer_ms",
            "uncached_prompt_tokens",
            "output_tokens",
            "first_text_over_model_allowance",
        ):
            print(f"  {key}: {figures[key]}")
        for group in figures["quality"]:
            print(
                f"  {group['group']:<14} n={group['questions']:<3} cited={group['gold_cited']} "
                f"must={group['must_contain']} wrong-abst={group['wrongly_abstained']} "
                f"abstained={group['abstained']}"
            )
    print("rates before/after:", report["rates_before"], report["rates_after"])
    print("load before/after:", report["load_before"], report["load_after"])


if __name__ == "__main__":
    main()
