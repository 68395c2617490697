"""Bounded load on the HTTP API over loopback: concurrent clients on /search, then /chat.

A real uvicorn server (its own process, one worker) serves a fresh home where the Foam
vault (86 real notes, ``../shared/data/vault-foam/docs``) is indexed through the API.
Then ``--clients`` asyncio clients (httpx, one connection each) send requests back to back
for ``--duration`` seconds, first to ``POST /search``, then to ``POST /chat`` (extractive
LLM: no model, so the figures are the service's own cost: retrieval, citation checks,
session writes). Each chat client keeps a session for ``--turns`` messages, then starts a
new one. Afterwards every session is read back: its message count must equal twice the
messages its client sent (question and answer), and no other session may exist.

Questions are 16 about Foam; by default each request makes its text unique (a client and
request number is appended), so the query-embedding and search-result caches never answer;
``--repeat`` sends them verbatim, which is what the caches are for.

Reported per phase: requests, requests/s, p50/p95/p99 latency, errors (any status but 200,
or a transport error). Exit code 1 on any error or mismatch.

    python bench/load_api.py                          # hash embedder, 8 clients, 60 s each
    python bench/load_api.py --embedder minilm        # the bundled MiniLM embedder
    python bench/load_api.py --duration 10 --json bench/out/load_api.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from _measure import machine, percentile

FOAM = Path(__file__).resolve().parents[2] / "shared" / "data" / "vault-foam" / "docs"
QUESTIONS = [
    "How do I create a new note?",
    "What are wikilinks and how do I use them?",
    "How do backlinks work?",
    "How can I publish my notes with GitHub Pages?",
    "What is a daily note?",
    "How do I use tags?",
    "How does the graph visualization work?",
    "How do note templates work?",
    "How do I add images to notes?",
    "How do I migrate from Obsidian?",
    "How can I take notes from my mobile phone?",
    "How do I export a note to PDF?",
    "What are link reference definitions?",
    "How do I sync my notes with git automatically?",
    "What are note properties?",
    "How do I write footnotes?",
]


@dataclass
class Phase:
    """What the clients of one phase saw."""

    name: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    def summary(self) -> dict[str, Any]:
        lat = self.latencies or [0.0]
        return {
            "route": self.name,
            "requests": len(self.latencies),
            "errors": len(self.errors),
            "first_errors": self.errors[:5],
            "seconds": round(self.elapsed, 2),
            "requests_per_s": round(len(self.latencies) / self.elapsed, 2) if self.elapsed else 0,
            "p50_ms": round(percentile(lat, 50) * 1000, 1),
            "p95_ms": round(percentile(lat, 95) * 1000, 1),
            "p99_ms": round(percentile(lat, 99) * 1000, 1),
        }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(home: str, port: int, embedder: str) -> None:
    """The server process: the notecite app on uvicorn, one worker."""
    import uvicorn

    from notecite.api import create_app
    from notecite.config import load_settings

    settings = load_settings(home=Path(home), embedder={"name": embedder}, llm="extractive")
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")


def start_server(home: Path, embedder: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, __file__, "--serve", str(home), str(port), "--embedder", embedder]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    process = subprocess.Popen(cmd, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(base + "/health", timeout=1).status_code == 200:
                return process, base
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit("the server did not start")
        time.sleep(0.1)


def index_vault(base: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=600) as http:
        http.post("/vaults", json={"name": "foam", "path": str(FOAM)}).raise_for_status()
        http.post("/vaults/foam/index").raise_for_status()
        while True:
            status: dict[str, Any] = http.get("/vaults/foam/index").json()
            if status["state"] != "running":
                return status
            time.sleep(0.2)


async def run_phase(
    base: str, route: str, clients: int, duration: float, turns: int, repeat: bool
) -> tuple[Phase, dict[str, int]]:
    """``clients`` clients sending back to back until ``duration`` is over; for /chat, the
    messages each session was sent."""
    phase = Phase(route)
    sent: dict[str, int] = {}
    stop = time.monotonic() + duration

    async def client(number: int) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            session: str | None = None
            i = number
            while time.monotonic() < stop:
                question = QUESTIONS[i % len(QUESTIONS)]
                if not repeat:  # a new text each time: no cache answers for it
                    question += f" (client {number}, request {i})"
                i += 1
                if route == "/search":
                    body: dict[str, Any] = {"query": question, "k": 8}
                else:
                    if session is not None and sent[session] >= turns:
                        session = None
                    body = {"message": question, "sessionId": session}
                started = time.perf_counter()
                try:
                    response = await http.post(route, json=body)
                except httpx.TransportError as exc:
                    phase.errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                took = time.perf_counter() - started
                if response.status_code != 200:
                    phase.errors.append(f"{response.status_code}: {response.text[:200]}")
                    continue
                phase.latencies.append(took)
                if route == "/chat":
                    session = response.json()["sessionId"]
                    sent[session] = sent.get(session, 0) + 1

    started = time.monotonic()
    await asyncio.gather(*(client(n) for n in range(clients)))
    phase.elapsed = time.monotonic() - started
    return phase, sent


def check_sessions(base: str, sent: dict[str, int]) -> list[str]:
    """Mismatches between what clients sent and what the sessions hold."""
    problems = []
    with httpx.Client(base_url=base, timeout=60) as http:
        listed = http.get("/sessions", params={"limit": 1000}).json()["sessions"]
        stored = {s["id"]: s["messageCount"] for s in listed}
        if set(stored) != set(sent):
            problems.append(f"{len(stored)} sessions stored, clients used {len(sent)}")
        for sid, count in sent.items():
            detail = http.get(f"/sessions/{sid}").json()
            if detail["messageCount"] != 2 * count or len(detail["messages"]) != 2 * count:
                problems.append(f"session {sid}: {detail['messageCount']} messages, sent {count}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per route")
    parser.add_argument("--turns", type=int, default=10, help="messages per chat session")
    parser.add_argument("--embedder", default="hash", choices=["hash", "minilm"])
    parser.add_argument(
        "--repeat",
        action="store_true",
        help="send the 16 questions verbatim (the query caches answer repeats)",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--serve", nargs=2, metavar=("HOME", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.embedder)
        return 0

    with tempfile.TemporaryDirectory(prefix="notecite-load-") as home:
        process, base = start_server(Path(home), args.embedder)
        try:
            report = index_vault(base)
            print(f"indexed foam: {report.get('report')}", flush=True)
            results: dict[str, Any] = {
                "machine": machine(),
                "clients": args.clients,
                "duration_s": args.duration,
                "embedder": args.embedder,
                "llm": "extractive",
                "questions": "repeated" if args.repeat else "unique",
                "phases": [],
            }
            sent: dict[str, int] = {}
            for route in ("/search", "/chat"):
                phase, sent_here = asyncio.run(
                    run_phase(base, route, args.clients, args.duration, args.turns, args.repeat)
                )
                sent.update(sent_here)
                results["phases"].append(phase.summary())
                print(json.dumps(phase.summary()), flush=True)
            problems = check_sessions(base, sent)
            results["sessions"] = {
                "count": len(sent),
                "messages_sent": sum(sent.values()),
                "mismatches": problems,
            }
            print(json.dumps(results["sessions"]), flush=True)
        finally:
            process.terminate()
            process.wait(30)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    errors = sum(p["errors"] for p in results["phases"])
    return 1 if errors or problems else 0


if __name__ == "__main__":
    sys.exit(main())
