"""A scripted model that, like the local one, has something to prepare before it answers."""

from __future__ import annotations

from notecite.testing import ScriptedLLM


class PreparableLLM(ScriptedLLM):
    """:class:`ScriptedLLM` with ``ready``, ``prepare`` and ``report_to`` (``Preparable``)."""

    def __init__(self, *answers: str) -> None:
        super().__init__(*answers)
        self.ready = False

    def prepare(self, progress: object = None) -> None:
        self.ready = True

    def report_to(self, progress: object) -> None:
        pass
