"""Engines for tests: settings in a fresh home, vaults written from a dict of files."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from notecite.config import Settings, load_settings
from notecite.embed.base import Embedder
from notecite.engine import Engine
from notecite.generate.base import LLM

Files = Mapping[str, str | bytes]
"""A folder of notes: relative path -> text (or bytes, written as they are)."""


def write_files(root: Path, files: Files) -> Path:
    """Write ``files`` under ``root`` (folders made as needed); return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def hash_settings(home: Path, **overrides: Any) -> Settings:
    """Settings of ``home`` with the ``hash`` embedder and the ``extractive`` LLM, both
    model-free and instant; ``overrides`` are passed to :func:`notecite.load_settings`."""
    overrides.setdefault("embedder", {"name": "hash"})
    overrides.setdefault("llm", "extractive")
    return load_settings(home=home, **overrides)


class EngineFactory:
    """Makes engines, each in a fresh home under ``root``, and closes them all at the end.

    ``engines(vaults={"notes": {"a.md": "# A\\nText."}}, llm=ScriptedLLM("..."))`` writes the
    vault, registers it, indexes it and returns the :class:`~notecite.engine.Engine`.
    Use it as a context manager, or call :meth:`close`.

    Args:
        root: The folder that holds every home (``home0``, ``home1``...) and every vault
            (``notes0/<name>``...).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.engines: list[Engine] = []

    def __call__(
        self,
        *,
        vaults: Mapping[str, Files] | None = None,
        llm: LLM | str | None = None,
        embedder: Embedder | str | Mapping[str, Any] = "hash",
        index: bool = True,
        clock: Callable[[], datetime] | None = None,
        **overrides: Any,
    ) -> Engine:
        """A new engine.

        Args:
            vaults: Vault name -> its files; each is written, registered and (with
                ``index``) indexed, in one run.
            llm: An LLM instance (the engine's default), or a provider name for the
                settings; the ``extractive`` provider when None.
            embedder: An embedder instance, a provider name ("hash", "minilm"...), or its
                settings (``{"name": "openai", "base_url": ...}``).
            index: Index the vaults before returning.
            clock: The moment questions are asked at (the system clock when None):
                ``clock=lambda: datetime(2026, 12, 2, tzinfo=UTC)`` fixes "today".
            **overrides: Settings, as for :func:`notecite.load_settings` (``ask={...}``).
        """
        number = len(self.engines)
        if isinstance(embedder, str):
            overrides["embedder"] = {"name": embedder}
        elif isinstance(embedder, Mapping):
            overrides["embedder"] = dict(embedder)
        overrides.setdefault("llm", llm if isinstance(llm, str) else "extractive")
        settings = hash_settings(self.root / f"home{number}", **overrides)
        engine = Engine(
            settings,
            llm=None if isinstance(llm, str) else llm,
            embedder=None if isinstance(embedder, str | Mapping) else embedder,
            clock=clock,
        )
        self.engines.append(engine)
        for name, files in (vaults or {}).items():
            engine.add_vault(name, write_files(self.root / f"notes{number}" / name, files))
        if vaults and index:
            engine.index()
        return engine

    def close(self) -> None:
        """Close every engine made so far."""
        for engine in self.engines:
            engine.close()
        self.engines.clear()

    def __enter__(self) -> EngineFactory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
