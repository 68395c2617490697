"""One-line messages for invalid settings: which key, what is wrong, where it was set, and
"did you mean" for a misspelled key (in TOML, in ``NOTECITE_*`` names, nested or not)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

ENV_PREFIX = "NOTECITE_"
ENV_NOT_SETTINGS = frozenset({"NOTECITE_CONFIG", "NOTECITE_BIN"})
"""``NOTECITE_*`` names read by something other than the settings."""


def closest(word: str, choices: Sequence[str]) -> str | None:
    """The choice ``word`` most likely misspells, or None."""
    found = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return found[0] if found else None


def _fields_at(model: type[BaseModel], path: Sequence[str | int]) -> list[str]:
    """The field names of the model found by walking ``path`` from ``model``."""
    current: Any = model
    for part in path:
        fields = getattr(current, "model_fields", None)
        if fields is None or part not in fields:
            return []
        current = fields[part].annotation
    fields = getattr(current, "model_fields", None)
    return sorted(fields) if fields else []


def _env_name(loc: Sequence[str | int]) -> str:
    return ENV_PREFIX + "__".join(str(p) for p in loc).upper()


def _origin(loc: Sequence[str | int], toml_file: Path | None, environ: Mapping[str, str]) -> str:
    env = _env_name(loc)
    if env in environ:
        return f"set by {env}"
    if toml_file is not None:
        return f"in {toml_file}"
    return ""


def describe_validation_error(
    exc: ValidationError,
    model: type[BaseModel],
    toml_file: Path | None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """Every error of ``exc`` on one line, e.g. ``ask.final_threshold: not a number ('abc',
    set by NOTECITE_ASK__FINAL_THRESHOLD)`` or ``unknown key ask.final_threshld (did you
    mean ask.final_threshold?)``."""
    env = os.environ if environ is None else environ
    parts: list[str] = []
    for error in exc.errors(include_url=False):
        loc = [p for p in error["loc"] if isinstance(p, str | int)]
        key = ".".join(str(p) for p in loc) or "settings"
        origin = _origin(loc, toml_file, env)
        if error["type"] == "extra_forbidden":
            hint = closest(str(loc[-1]), _fields_at(model, loc[:-1])) if loc else None
            meant = [*loc[:-1], hint] if hint else []
            in_env = _env_name(loc) in env
            spelled = _env_name(meant) if in_env else ".".join(map(str, meant))
            mean = f"did you mean {spelled}?" if hint else ""
            detail = "; ".join(x for x in (origin, mean) if x)
            parts.append(f"unknown key {key}{f' ({detail})' if detail else ''}")
            continue
        value = error.get("input")
        shown = f"{value!r}" if isinstance(value, str | int | float | bool) else ""
        detail = ", ".join(x for x in (shown, origin) if x)
        parts.append(f"{key}: {error['msg']}{f' ({detail})' if detail else ''}")
    return "; ".join(parts)


def unknown_env_names(model: type[BaseModel], environ: Mapping[str, str] | None = None) -> str:
    """A message naming each ``NOTECITE_*`` variable whose first part is no setting (the
    environment source ignores those silently), or "" when there is none.

    Only names that look meant for the settings are reported: a nested name (``__``), or a
    close misspelling of a top-level key (``NOTECITE_LMM``).
    """
    env = os.environ if environ is None else environ
    fields = _fields_at(model, ())
    problems: list[str] = []
    for name in sorted(env):
        if not name.startswith(ENV_PREFIX) or name in ENV_NOT_SETTINGS:
            continue
        head, nested, rest = name[len(ENV_PREFIX) :].partition("__")
        head = head.lower()
        if head in fields:
            continue
        hint = closest(head, fields)
        if not nested and hint is None:
            continue
        meant = _env_name([hint]) + (nested + rest if nested else "") if hint else ""
        mean = f" (did you mean {meant}?)" if hint else ""
        problems.append(f"unknown environment variable {name}{mean}")
    return "; ".join(problems)
