"""Reading template files: frontmatter, body, defaults, and the text that gets embedded."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from notecite.errors import ParseError
from notecite.ingest.frontmatter import first_str, split_frontmatter
from notecite.templates.types import Template

logger = logging.getLogger(__name__)

EMBED_CONTENT_CHARS = 1000
"""How much of a template's content goes into its embedded text."""


def parse_template_text(text: str, template_id: str, file_path: str = "") -> Template:
    """A template from the text of its file.

    Frontmatter keys: ``name`` (or ``title``; default: the id, dashes as spaces),
    ``description``, ``domain`` (default ``general``), ``complexity`` (``moderate``),
    ``methodology`` (``sequential``), ``keywords`` (or ``tags``: a list or a comma-separated
    string). ``content`` is the markdown after the frontmatter.

    Raises:
        ParseError: the frontmatter is not valid YAML or not a mapping.
    """
    meta, body, _ = split_frontmatter(text.lstrip("\ufeff"))
    return Template(
        id=template_id,
        name=first_str(meta, "name", "title") or template_id.replace("-", " ").strip(),
        domain=first_str(meta, "domain") or "general",
        complexity=first_str(meta, "complexity") or "moderate",
        methodology=first_str(meta, "methodology") or "sequential",
        keywords=_keywords(meta.get("keywords", meta.get("tags"))),
        description=first_str(meta, "description"),
        content=body.strip(),
        file_path=file_path,
    )


def parse_template(path: Path) -> Template:
    """Read the template file ``path``; its id is the file name without ``.md``.

    Raises:
        ParseError: the file cannot be read, is not UTF-8, or its frontmatter is invalid.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{path} is not UTF-8 text") from exc
    except OSError as exc:
        raise ParseError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return parse_template_text(text, path.stem, str(path.resolve()))
    except ParseError as exc:
        raise ParseError(f"{path}: {exc}") from exc


def _keywords(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        items = [items]
    cleaned = (str(item).strip().lstrip("#") for item in items if item is not None)
    return tuple(dict.fromkeys(k for k in cleaned if k))


def template_files(dirs: Iterable[Path]) -> list[Path]:
    """Every ``.md`` file under ``dirs`` (recursively, hidden entries skipped), dir by dir,
    sorted within each; a missing dir is skipped with a warning."""
    found: list[Path] = []
    for folder in dirs:
        if not folder.is_dir():
            logger.warning("template folder %s does not exist; skipped", folder)
            continue
        found.extend(
            sorted(
                path
                for path in folder.rglob("*.md")
                if path.is_file()
                and not any(part.startswith(".") for part in path.relative_to(folder).parts)
            )
        )
    return found


def load_templates(dirs: Sequence[Path]) -> list[Template]:
    """Parse every template under ``dirs``; the first file with a given id wins.

    Unreadable or invalid files are skipped with a warning: one bad file never stops a run.
    """
    templates: dict[str, Template] = {}
    for path in template_files(dirs):
        try:
            template = parse_template(path)
        except ParseError as exc:
            logger.warning("template skipped: %s", exc)
            continue
        if template.id in templates:
            logger.warning(
                "template %s in %s ignored: the id is taken by %s",
                template.id,
                path,
                templates[template.id].file_path,
            )
            continue
        templates[template.id] = template
    return list(templates.values())


def embed_text(template: Template) -> str:
    """The composite text that is embedded: name, description, keywords, methodology and
    the first 1,000 characters of the content."""
    parts = [
        template.name,
        template.description,
        "Keywords: " + ", ".join(template.keywords) if template.keywords else "",
        f"Methodology: {template.methodology}",
        template.content[:EMBED_CONTENT_CHARS],
    ]
    return "\n".join(p for p in parts if p)


def fingerprint(template: Template) -> str:
    """A hash of everything stored for ``template``: it changes when the file changes."""
    return hashlib.sha256(template.model_dump_json().encode()).hexdigest()
