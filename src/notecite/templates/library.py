"""The shipped template library, where the default template dirs point, and the built-in
chain-of-thought template used when no library holds one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from notecite.templates.types import DEFAULT_TEMPLATE_DIRS, FALLBACK_TEMPLATE_ID, Template

BUNDLED_LIBRARY = Path(__file__).resolve().parent / "library"
"""The package's copy of ``data/bot-buffer`` and ``data/templates``."""


def resolve_template_dirs(dirs: Sequence[Path], cwd: Path | None = None) -> list[Path]:
    """Absolute template dirs. A default dir (``data/bot-buffer``, ``data/templates``) that
    does not exist under ``cwd`` (default: the working directory) resolves to the bundled
    copy of the library; other dirs are taken as given."""
    base = cwd or Path.cwd()
    resolved = []
    for folder in dirs:
        path = (base / folder.expanduser()).resolve()
        if not path.is_dir() and folder.as_posix() in DEFAULT_TEMPLATE_DIRS:
            path = BUNDLED_LIBRARY / folder.name
        resolved.append(path)
    return resolved


BUILTIN_CHAIN_OF_THOUGHT = Template(
    id=FALLBACK_TEMPLATE_ID,
    name="Chain of thought",
    domain="general",
    complexity="simple",
    methodology="sequential",
    keywords=("step by step", "reasoning", "intermediate steps"),
    description=(
        "Work through the problem one explicit step at a time, writing down each "
        "intermediate result before using it."
    ),
    content=(
        "# Chain of thought\n\n"
        "1. Restate the question and the form the answer must take.\n"
        "2. List what is given and mark what you assume.\n"
        "3. Plan the sub-results that lead from the givens to the answer.\n"
        "4. Work one step at a time, naming the rule or fact each step uses.\n"
        "5. Check the result against a simple case and for plausibility.\n"
        "6. Give the answer, then the steps that matter most."
    ),
    file_path="",
)
"""Returned by a search when the library has no ``bot-chain-of-thought`` file."""
