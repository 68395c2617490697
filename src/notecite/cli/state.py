"""What every CLI command shares: the merged settings and a lazily built Engine."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from notecite.config import Settings
from notecite.engine import Engine


@dataclass
class CliState:
    """Settings loaded once at the root, and the Engine built from them on first use."""

    debug: bool = False
    settings: Settings = field(default_factory=Settings)
    _engine: Engine | None = None

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = Engine(self.settings)
        return self._engine

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()


pass_state = click.make_pass_decorator(CliState)
