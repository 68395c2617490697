"""`notecite models prepare`, and the model preparation other commands show before they
wait for it (``chat``, ``ask``): a bar while the bundled model is assembled, a line while it
loads, on standard error so piped answers stay clean."""

from __future__ import annotations

import sys
import time
from typing import Literal, TextIO

import click
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

from notecite.cli.state import CliState, pass_state
from notecite.engine import Engine
from notecite.generate.base import Preparable

PLAIN_STEP = 0.25  # piped output: one line per quarter of the assembly


class ModelReport:
    """Shows ``prepare_llm``'s progress: a rich bar on a terminal, plain lines otherwise."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stderr
        self._terminal = self._stream.isatty()
        self._progress: Progress | None = None
        self._task: int | None = None
        self._next_share = PLAIN_STEP
        self._started = time.perf_counter()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == "assemble":
            self._assemble(done, total)
        elif stage == "load" and done == 0:
            self._stop_bar()
            self._line("loading the model into memory ...")
        elif stage == "load":
            self._line(f"model ready ({time.perf_counter() - self._started:.1f} s)")

    def _assemble(self, done: int, total: int) -> None:
        if self._terminal:
            if self._progress is None:
                self._line("assembling the bundled model (once; about 1 GB) ...")
                self._progress = Progress(
                    TextColumn("  model"),
                    BarColumn(),
                    DownloadColumn(),
                    TimeRemainingColumn(),
                    console=Console(file=self._stream),
                    transient=True,
                )
                self._progress.start()
                self._task = self._progress.add_task("assemble", total=total)
            if self._task is not None:
                self._progress.update(self._task, completed=done)  # type: ignore[arg-type]
            return
        if done == 0 or (total and done / total >= self._next_share):
            share = done / total if total else 1.0
            self._line(f"assembling the bundled model (once): {share:.0%}")
            while self._next_share <= share:
                self._next_share += PLAIN_STEP

    def _stop_bar(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def _line(self, text: str) -> None:
        click.echo(text, file=self._stream)

    def close(self) -> None:
        """Take the bar down (when preparation failed half-way)."""
        self._stop_bar()


def prepare_llm(
    engine: Engine, name: str | None = None, first_use: Literal["ask", "chat"] = "ask"
) -> bool:
    """Prepare the LLM ``name`` for ``first_use`` with progress on standard error; True when
    it had to.

    Raises:
        LLMError: the model cannot be assembled or loaded.
    """
    report = ModelReport()
    try:
        return engine.prepare_llm(name, report, first_use)
    finally:
        report.close()


def report_model_loading(engine: Engine, name: str | None = None) -> ModelReport | None:
    """Have the LLM ``name`` show its progress if a question makes it load (a question that
    abstains before any model call loads nothing); the report to close afterwards."""
    provider = engine.llm(name)
    if not isinstance(provider, Preparable) or provider.ready:
        return None
    report = ModelReport()
    provider.report_to(report)
    return report


@click.group("models")
def models_group() -> None:
    """The language model that writes answers."""


@models_group.command("prepare")
@click.option("--llm", "llm", help="Provider to prepare (default: the configured one).")
@pass_state
def prepare_command(state: CliState, llm: str | None) -> None:
    """Assemble and load the local model now (for scripts and first runs): a later
    question, chat or server start then pays no one-time assembly."""
    provider = state.engine.llm(llm)
    if not prepare_llm(state.engine, llm):
        click.echo(f"{provider.name} ({provider.model_id}): nothing to prepare")
        return
    click.echo(f"{provider.name} ({provider.model_id}): assembled, verified and loadable")
