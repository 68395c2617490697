"""The allow-list of the rendered markdown (web/static/markdown.js), stated again here so that
the tests check the page against it rather than against itself."""

from __future__ import annotations

import re
from typing import Any

TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote",
        "pre", "code", "em", "strong", "del", "a", "span", "button",
        "table", "thead", "tbody", "tr", "th", "td", "img"}  # fmt: skip
ATTRIBUTES = {"href", "title", "class", "id", "type", "start", "align", "data-cid", "target", "rel",
              "src", "alt"}  # fmt: skip
SAFE_PROTOCOLS = {"http:", "https:", "mailto:"}
CLASSES = {"chip", "wikilink", "target"}  # language-* on fenced code; the view marks a target

# Every element under a root, with its attributes and, for links, the protocol the browser
# would follow.
DESCRIBE = """(root) => [...root.querySelectorAll("*")].map((node) => ({
  tag: node.localName,
  attributes: Object.fromEntries([...node.attributes].map((a) => [a.name, a.value])),
  protocol: node.localName === "a" && node.hasAttribute("href") ? node.protocol : null,
}))"""


def problems(elements: list[dict[str, Any]]) -> list[str]:
    """What in the described elements is outside the allow-list (empty: all is well)."""
    found = []
    for element in elements:
        tag, attributes = element["tag"], element["attributes"]
        if tag not in TAGS:
            found.append(f"element <{tag}>")
        for name, value in attributes.items():
            if name not in ATTRIBUTES:
                found.append(f"attribute {name}={value!r} on <{tag}>")
        if "id" in attributes and not attributes["id"].startswith("user-content-"):
            found.append(f"id {attributes['id']!r} without the user-content- prefix")
        if element["protocol"] is not None and element["protocol"] not in SAFE_PROTOCOLS:
            found.append(f"link to {attributes['href']!r} ({element['protocol']})")
        if tag == "a" and "href" in attributes and attributes.get("rel") != "noopener noreferrer":
            found.append(f"link without rel=noopener: {attributes}")
        if attributes.get("target", "_blank") != "_blank":
            found.append(f"target {attributes['target']!r}")
        if "src" in attributes and (tag != "img" or not attributes["src"].startswith("/notes/")):
            found.append(f"src {attributes['src']!r} on <{tag}> (images load from /notes only)")
        if "type" in attributes and (tag, attributes["type"]) != ("button", "button"):
            found.append(f"type={attributes['type']!r} on <{tag}>")
        found.extend(
            f"class {name!r} on <{tag}>"
            # split as HTML splits a class list (ASCII whitespace only; Python's split() also
            # cuts at \x1c-\x1f, which would read "language-\x1f0" as two classes)
            for name in re.split(r"[ \t\n\f\r]+", attributes.get("class", "").strip(" \t\n\f\r"))
            if name
            if name not in CLASSES and not name.startswith("language-")
        )
    return found
