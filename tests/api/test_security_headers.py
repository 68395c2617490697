"""Every response, of the page and of the API, carries the security headers; the pages hold no
inline script, style or handler that the Content-Security-Policy would have to allow."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from notecite.api.headers import CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.anyio

REQUESTS: list[tuple[str, str, dict[str, object]]] = [
    ("GET", "/", {}),
    ("GET", "/logs", {}),
    ("GET", "/indexing", {}),
    ("GET", "/view/notes/projects/apollo.md", {}),
    ("GET", "/static/api.js", {}),
    ("GET", "/static/vendor/dompurify/purify.js", {}),
    ("GET", "/health", {}),
    ("GET", "/vaults", {}),
    ("GET", "/notes/notes/projects/apollo.md", {}),
    ("GET", "/openapi.json", {}),
    ("POST", "/graphql", {"json": {"query": "{ sessions { id } }"}}),
    ("POST", "/chat", {"json": {"message": "Apollo budget?", "stream": True}}),
    ("GET", "/no-such-route", {}),  # 404
    ("POST", "/ask", {"json": {}}),  # 422
    ("POST", "/ask", {"content": b"x" * 2_000_000}),  # 413
    ("GET", "/health", {"headers": {"Host": "evil.example"}}),  # 400, refused host
    ("GET", "/notes/notes/a%00.md", {}),  # 400, NUL
]


def directives(policy: str) -> dict[str, list[str]]:
    """The policy's directives with their sources."""
    out = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        out[name] = sources
    return out


def test_the_policy_is_strict() -> None:
    policy = directives(CONTENT_SECURITY_POLICY)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]  # no inline script, no eval, no other origin
    assert policy["style-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert not any("unsafe" in source for sources in policy.values() for source in sources)
    assert not any(source.startswith("http") for sources in policy.values() for source in sources)


@pytest.mark.parametrize(("method", "path", "arguments"), REQUESTS)
async def test_every_response_carries_the_security_headers(
    indexed: httpx.AsyncClient, method: str, path: str, arguments: dict[str, object]
) -> None:
    response = await indexed.request(method, path, **arguments)
    headers = response.headers
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"
    if response.status_code >= 400:
        assert set(response.json()["error"]) == {"type", "message"}


class _Inline(HTMLParser):
    """Collects what in a page a strict policy would refuse."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "script" and "src" not in names:
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("<style>")
        self.found.extend(f"{name} on <{tag}>" for name in names if name.startswith("on"))
        if "style" in names:
            self.found.append(f"style on <{tag}>")
        for name, value in attrs:
            if name in ("src", "href") and value and re.match(r"(?i)\s*(https?:)?//", value):
                self.found.append(f"{name}={value} from another origin")


@pytest.mark.parametrize("path", ["/", "/logs", "/indexing", "/view/notes/projects/apollo.md"])
async def test_the_pages_need_nothing_the_policy_forbids(
    indexed: httpx.AsyncClient, path: str
) -> None:
    page = await indexed.get(path)
    parser = _Inline()
    parser.feed(page.text)
    assert parser.found == []
    assert "/static/vendor/marked/marked.umd.js" in page.text


def test_no_static_script_writes_html_from_a_string() -> None:
    static = Path(__file__).resolve().parents[2] / "src" / "notecite" / "web" / "static"
    for script in static.glob("*.js"):
        text = script.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, f"{script.name} uses {sink}"
