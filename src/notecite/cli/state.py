"""What every CLI command shares: the merged settings and a lazily built Engine (of the
tenant chosen with ``--tenant``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import click

from notecite.config import DEFAULT_TENANT, Settings
from notecite.engine import Engine


@dataclass
class CliState:
    """Settings loaded once at the root, and the Engine built from them on first use."""

    debug: bool = False
    settings: Settings = field(default_factory=Settings)
    tenant: str = DEFAULT_TENANT
    config_file: Path | None = None
    _engine: Engine | None = None
    _root: Engine | None = None

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._root = Engine(self.settings)
            if self.tenant == DEFAULT_TENANT:
                self._engine = self._root
            else:
                self._engine = self._root.for_tenant(self.tenant)
        return self._engine

    def close(self) -> None:
        if self._engine is not None and self._engine is not self._root:
            self._engine.close()
        if self._root is not None:
            self._root.close()


pass_state = click.make_pass_decorator(CliState)
