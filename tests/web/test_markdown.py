"""The page's markdown path (marked + DOMPurify, web/static/markdown.js) in headless Chromium:
what it renders, and a hypothesis fuzz test that nothing outside the allow-list ever comes out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Browser, Page

from tests.web.allow_list import DESCRIBE, problems
from tests.web.conftest import watch

pytestmark = pytest.mark.browser

# Render into an inert <template> and describe every element; rendering into a live element
# as the page does (markdown.fill) must give the same elements.
RENDER = """([source, citations]) => {
  const describe = DESCRIBE;
  const inert = document.createElement("template");
  inert.innerHTML = markdown.render(source, { citations });
  const live = document.createElement("div");
  markdown.fill(live, source, { citations });
  return { html: inert.innerHTML, elements: describe(inert.content),
           same: live.innerHTML === inert.innerHTML };
}""".replace("DESCRIBE", DESCRIBE)


@pytest.fixture(scope="module")
def render_page(browser: Browser, base_url: str) -> Iterator[Page]:
    """One page, shared by the examples of the fuzz test (a page per example is too slow)."""
    context = browser.new_context(base_url=base_url)
    tab = context.new_page()
    errors = watch(tab)
    tab.goto("/logs")
    yield tab
    context.close()
    assert not errors, f"JavaScript errors or CSP refusals on the page: {errors}"


def render(page: Page, source: str, citations: bool = False) -> dict[str, Any]:
    """The rendered HTML of ``source`` and its elements."""
    result: dict[str, Any] = page.evaluate(RENDER, [source, citations])
    assert result["same"], "markdown.fill and markdown.render disagree"
    return result


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>"),
        ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
        ("[x](javascript:alert(1))", "<p>x</p>"),
        ("[x](JaVaScRiPt:alert(1))", "<p>x</p>"),
        ("[x](data:text/html,hi)", "<p>x</p>"),
        ("[x](vbscript:msgbox)", "<p>x</p>"),
        ("[x]( \x01javascript:alert(1))", "<p>[x]( \x01javascript:alert(1))</p>"),
        ("[x](<\x01javascript:alert(1)>)", "<p>x</p>"),
        ("![pic](javascript:alert(1))", "<p>pic</p>"),
        (
            "![pic](https://example.org/p.png)",
            '<p><a href="https://example.org/p.png" target="_blank" rel="noopener noreferrer">'
            "pic</a></p>",
        ),
        (
            '[ok](https://example.org/?a=1&b="2")',
            '<p><a href="https://example.org/?a=1&amp;b=&quot;2&quot;" target="_blank" '
            'rel="noopener noreferrer">ok</a></p>',
        ),
        (
            "[[Other note|the other]] and [[plain]]",
            '<p><span class="wikilink" title="Other note">the other</span> and '
            '<span class="wikilink" title="plain">plain</span></p>',
        ),
        (
            '[[a" onclick="x|b]]',
            '<p><span class="wikilink" title="a&quot; onclick=&quot;x">b</span></p>',
        ),
        ("## Send", '<h2 id="user-content-send">Send</h2>'),
    ],
)
def test_what_the_markdown_path_renders(render_page: Page, source: str, expected: str) -> None:
    assert render(render_page, source)["html"].strip() == expected


def test_headings_lists_code_and_citation_chips(render_page: Page) -> None:
    html = render(render_page, "# Plan\n\n- **bold** and *it*\n- `a<b`", citations=True)["html"]
    assert html.startswith('<h1 id="user-content-plan">Plan</h1>')
    assert "<li><strong>bold</strong> and <em>it</em></li>" in html
    assert "<code>a&lt;b</code>" in html
    html = render(render_page, "Budget [N1] and `[N2]`", citations=True)["html"]
    assert (
        '<button type="button" class="chip" data-cid="N1" title="show source N1">N1</button>'
        in html
    )
    assert "<code>[N2]</code>" in html  # code is left alone
    assert "chip" not in render(render_page, "Budget [N1]")["html"]  # notes have no chips


# Pieces that markdown and HTML attacks are made of, mixed with arbitrary text.
PIECES = [
    "[", "]", "(", ")", "[[", "]]", "|", "<", ">", '"', "'", "`", "```", "*", "_", "#", "-",
    "!", "\n", "\n\n", " ", "\t", "\x01", "\x00", ":", "/", "\\", "&", ";", "&#106;", "&#x6A;",
    "javascript:", "JaVaScRiPt:", " javascript:", "data:text/html,", "vbscript:", "blob:",
    "onerror=", "onfocus=", "onclick=", "autofocus", "contenteditable", "style=", "id=", "name=",
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<svg/onload=alert(1)>",
    "<a href='javascript:alert(1)'>", "<iframe src=javascript:alert(1)>", "<style>*{}</style>",
    "<math><mi><mglyph><style><!--</style><img src onerror=alert(1)>", "<!--", "-->",
    "<![CDATA[", "<form action=x>", "<input autofocus onfocus=alert(1)>", "<base href=//evil>",
    "<meta http-equiv=refresh content=0;url=javascript:alert(1)>", "<object data=x>",
    "N1", "[N1]", "[N12]", "http://x.example/", "mailto:a@b.example", "www.x.example",
    "|---|", "> ", "1. ", "- [ ] ", "- [x] ", "# ", "\u2028", "\ufeff", "%0a", "%6A",
]  # fmt: skip
hostile_markdown = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=40
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=hostile_markdown, citations=st.booleans())
# a NUL after an autolink: the href written held it, the page read it as U+FFFD (no URL)
@example(source="www.x.example\x00", citations=False)
def test_no_element_or_attribute_outside_the_allow_list_ever_comes_out(
    render_page: Page, source: str, citations: bool
) -> None:
    result = render(render_page, source, citations)
    assert problems(result["elements"]) == [], result["html"]
    assert render_page.evaluate("document.body.dataset.pwned") is None
