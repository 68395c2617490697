"""Helpers of the template tests: template files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

TOPICS: dict[str, tuple[str, str, list[str]]] = {
    "contradiction": (
        "Proof by contradiction",
        "Assume the statement is false and derive an impossibility.",
        ["proof", "contradiction", "negation"],
    ),
    "five-whys": (
        "Five whys",
        "Ask why repeatedly to trace an outage back to its root cause.",
        ["outage", "root", "cause", "incident"],
    ),
    "fermi": (
        "Fermi estimate",
        "Estimate a quantity by multiplying rough factors.",
        ["estimate", "order", "magnitude", "piano", "tuners"],
    ),
    "matrix": (
        "Decision matrix",
        "Score options against weighted criteria to choose between them.",
        ["options", "criteria", "weights", "vendor"],
    ),
    "premortem": (
        "Pre-mortem",
        "Imagine the launch failed and list the risks that caused it.",
        ["launch", "risks", "failure", "mitigation"],
    ),
    "analogy": (
        "Analogy",
        "Borrow a solution from a problem with the same structure in another field.",
        ["analogy", "structure", "mapping", "borrow"],
    ),
    "bot-chain-of-thought": (
        "Chain of thought (library copy)",
        "Reason one written step at a time.",
        ["steps", "sequence"],
    ),
}
"""Seven templates with distinct words, so the hash embedder tells them apart."""


def template_text(
    name: str, description: str = "", keywords: Sequence[str] = (), body: str = "", **meta: object
) -> str:
    """A template file: YAML frontmatter, then the markdown body."""
    data: dict[str, object] = {"name": name}
    if description:
        data["description"] = description
    if keywords:
        data["keywords"] = list(keywords)
    data.update(meta)
    front = yaml.safe_dump(data, sort_keys=False)
    return f"---\n{front}---\n{body or '# ' + name + chr(10) + description}\n"


def write_template(folder: Path, template_id: str, text: str | None = None) -> Path:
    """Write ``folder/<template_id>.md`` (from :data:`TOPICS` unless ``text`` is given)."""
    folder.mkdir(parents=True, exist_ok=True)
    if text is None:
        name, description, keywords = TOPICS[template_id]
        text = template_text(name, description, keywords)
    path = folder / f"{template_id}.md"
    path.write_text(text, encoding="utf-8")
    return path


def two_dirs(root: Path) -> tuple[Path, Path]:
    """Five templates in ``root/templates`` and two (one of them chain of thought) in
    ``root/bot-buffer``."""
    first, second = root / "templates", root / "bot-buffer"
    for template_id in ("contradiction", "five-whys", "fermi", "matrix", "premortem"):
        write_template(first, template_id)
    for template_id in ("analogy", "bot-chain-of-thought"):
        write_template(second, template_id)
    return first, second
