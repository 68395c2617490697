"""The ``notecite`` command for tests: click's runner on a home folder of the test's own."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner, Result

from notecite.cli.main import cli


class CliRun:
    """``run("ask", "When?", "--json")`` invokes ``notecite --home HOME --embedder hash ...``.

    Each call checks the exit code (``code``, 0 by default) and returns click's
    :class:`~click.testing.Result` (``.output``, ``.stdout``). The root logger is put back
    as it was after each call: the command configures logging on the runner's stream.

    Args:
        home: The data directory of every call.
        embedder: The ``--embedder`` of every call (None: the settings decide).
        llm: The ``--llm`` of every call (None: the settings decide).
    """

    def __init__(self, home: Path, *, embedder: str | None = "hash", llm: str | None = None):
        self.home = home
        self.embedder = embedder
        self.llm = llm
        self.runner = CliRunner()

    def root_args(self) -> list[str]:
        """The options put before every command."""
        args = ["--home", str(self.home)]
        if self.embedder is not None:
            args += ["--embedder", self.embedder]
        if self.llm is not None:
            args += ["--llm", self.llm]
        return args

    def __call__(
        self,
        *args: str,
        input: str | None = None,
        env: Mapping[str, str | None] | None = None,
        code: int | None = 0,
    ) -> Result:
        """Run one command; ``code`` None accepts any exit code.

        Args:
            *args: The command and its arguments.
            input: Text fed to standard input.
            env: Environment variables set (a None value unsets one) for this call.
            code: The exit code the call must end with.
        """
        root = logging.getLogger()
        handlers, level = root.handlers[:], root.level
        try:
            result = self.runner.invoke(
                cli, [*self.root_args(), *args], input=input, env=dict(env or {})
            )
        finally:
            root.handlers[:] = handlers
            root.setLevel(level)
        if code is not None and result.exit_code != code:
            raise AssertionError(
                f"notecite {' '.join(args)} exited {result.exit_code}, not {code}:\n{result.output}"
            ) from result.exception
        return result
