"""The first chat turn after the model loads, with the model prepared for asks or for chat.

``Engine.prepare_llm`` has the local model read a fixed prompt start ahead, into llama.cpp's
prompt cache: an answer prompt's (``first_use="ask"``: `notecite serve`, `models prepare`)
or a chat turn's (``first_use="chat"``: `notecite chat`). Each run is a fresh process that
loads the model, prepares it one way and sends one chat message (the default system prompt);
the runs alternate between the two ways, and the turn's wall time is reported per way
(median and all runs), with the load average.

    python bench/chat_first_turn.py --home H --vault foam --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _measure import machine, median

MESSAGE = "How do I create a daily note in Foam?"


def child(home: Path, vault: str, first_use: str, message: str) -> None:
    """One run in this process: prepare for ``first_use``, time one chat turn, print JSON."""
    os.environ["NOTECITE_HOME"] = str(home)
    from notecite.chat import ChatRequest
    from notecite.config import load_settings
    from notecite.engine import Engine
    from notecite.evaluate.beir import eval_settings

    settings = eval_settings(load_settings(llm="local"), f"qa-{vault}")
    with Engine(settings) as engine:
        engine.prepare_llm(first_use="chat" if first_use == "chat" else "ask")
        started = time.perf_counter()
        response = engine.chat(ChatRequest(message=message))
        seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "prompt_tokens": response.meta.prompt_tokens}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a home with qa-VAULT indexes")
    parser.add_argument("--vault", default="foam")
    parser.add_argument("--runs", type=int, default=3, help="runs per way")
    parser.add_argument("--message", default=MESSAGE)
    parser.add_argument("--child", choices=("ask", "chat"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.home, args.vault, args.child, args.message)
        return
    print(machine())
    load_before = os.getloadavg()
    seconds: dict[str, list[float]] = {"ask": [], "chat": []}
    for _ in range(args.runs):
        for way in ("ask", "chat"):
            command = [sys.executable, __file__, "--child", way, "--home", str(args.home)]
            command += ["--vault", args.vault, "--message", args.message]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            seconds[way].append(result["seconds"])
    for way, values in seconds.items():
        runs = ", ".join(f"{v:.2f}" for v in values)
        print(f"prepared for {way}: first chat turn median {median(values):.2f} s ({runs})")
    print(f"ratio chat/ask: {median(seconds['chat']) / median(seconds['ask']):.2f}")
    print("load before/after:", load_before, os.getloadavg())


if __name__ == "__main__":
    main()
