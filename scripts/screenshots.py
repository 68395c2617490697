"""Save screenshots of the web page's main states to docs/screenshots/ (used in the README).

Serves a copy of examples/notes (plus one unreadable PDF, to show the failed-files list)
with the bundled MiniLM embedder and the model-free ``extractive`` LLM on a free loopback
port, and drives Debian's headless Chromium with Playwright:

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from playwright.sync_api import Page, expect, sync_playwright

from notecite import Engine, load_settings
from notecite.api import create_app
from notecite.config import Settings

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "What is the Atlas budget and how is it split?"
FOLLOW_UP = "When is the Atlas launch, and why was it moved?"
UNANSWERABLE = "Which cloud provider does Atlas run on?"


@contextmanager
def serving(settings: Settings) -> Iterator[str]:
    """``notecite serve`` in a thread on a free loopback port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def ask(page: Page, text: str) -> None:
    done = page.locator("#messages .message.assistant:not(.streaming)")
    before = done.count()
    page.fill("#message", text)
    page.press("#message", "Enter")
    expect(done).to_have_count(before + 1, timeout=60_000)
    expect(page.locator("#composer")).to_have_attribute("data-state", "idle")


def ready(page: Page, path: str) -> None:
    page.goto(path)
    expect(page.locator("body")).to_have_attribute("data-ready", "true", timeout=30_000)


def take(out: Path, base_url: str) -> None:
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        context = browser.new_context(
            base_url=base_url, viewport={"width": 1360, "height": 860}, color_scheme="light"
        )
        page = context.new_page()
        ready(page, "/")
        page.locator("#session-list .session-title").first.wait_for()
        page.locator("#set-topk").fill("4")
        ask(page, QUESTION)
        ask(page, FOLLOW_UP)
        page.locator("#messages .message.assistant").last.scroll_into_view_if_needed()
        page.screenshot(path=out / "chat.png")
        chat_url = page.url

        answer = page.locator("#messages .message.assistant").first
        answer.locator(".bubble button.chip").first.click()
        page.screenshot(path=out / "citation-panel.png")
        page.locator("#source-close").click()

        page.locator("#sidebar").screenshot(path=out / "settings.png")

        answer.locator("details.debug summary").click()
        answer.locator("details.debug").scroll_into_view_if_needed()
        page.screenshot(path=out / "debug-drawer.png")

        page.locator("#new-session").click()
        expect(page.locator("#session-title")).to_have_text("New chat")
        expect(page.locator("#messages .message")).to_have_count(0)
        page.locator("#set-threshold").fill("60")
        expect(page.locator("#settings")).to_have_attribute("data-pending", "0")
        ask(page, UNANSWERABLE)
        page.screenshot(path=out / "abstention.png")

        ready(page, "/logs")
        page.locator("#logs-body .badge.rag").first.hover()
        page.screenshot(path=out / "chat-logs.png")

        ready(page, "/indexing")
        page.locator(".card.vault button.reindex").first.click()
        expect(page.locator(".card.vault .progress").first).to_have_attribute(
            "data-state", "done", timeout=60_000
        )
        page.wait_for_timeout(400)  # the progress bar's last transition
        page.screenshot(path=out / "index.png")

        ready(page, chat_url)
        link = page.locator("#messages .sources button").first
        link.click()
        href = page.locator("#source-open").get_attribute("href") or "/"
        ready(page, href)
        page.screenshot(path=out / "note-view.png")

        phone = browser.new_context(
            base_url=base_url,
            viewport={"width": 390, "height": 844},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
        )
        small = phone.new_page()
        ready(small, "/logs")
        small.locator("#logs-body a", has_text="Atlas budget").first.click()
        expect(small.locator("body")).to_have_attribute("data-ready", "true")
        small.locator("#messages .message.assistant .bubble button.chip").first.click()
        small.screenshot(path=out / "phone.png")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="notecite-shots-") as tmp:
        notes = Path(tmp) / "notes"
        shutil.copytree(ROOT / "examples" / "notes", notes)
        (notes / "scans").mkdir()
        (notes / "scans" / "receipt.pdf").write_bytes(b"%PDF-1.4 cut off in the scanner")
        settings = load_settings(home=Path(tmp) / "home", llm="extractive")
        with Engine(settings) as engine:
            engine.add_vault("notes", notes)
            engine.index()
        with serving(settings) as base_url:
            take(args.out, base_url)
    for png in sorted(args.out.glob("*.png")):
        print(png.relative_to(ROOT))


if __name__ == "__main__":
    main()
