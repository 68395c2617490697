"""Shared by the scripts that look at what reaches the local model without running it
(evidence_coverage, qa_ranking, replay_answers): each QA question asked through
``Engine.ask`` as ``notecite eval qa --llm local`` asks it, with a scripted model named
``local`` (so the local model's context budget applies) that records its prompt and answers
nothing, or what a ``script`` gives it for the question.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from notecite import Engine
from notecite.config import Settings
from notecite.evaluate.beir import eval_settings
from notecite.evaluate.qa_data import QaItem
from notecite.generate.base import GenerationRequest
from notecite.schemas.ask import AskRequest, AskResponse
from notecite.testing import ScriptedLLM


@dataclass(frozen=True)
class Recorded:
    """One question's ask: the response (with its debug view) and the prompt the model
    would have read ("" when the ask abstained before any model call)."""

    item: QaItem
    response: AskResponse
    read: bool = False
    """Was the model asked the reading check's yes/no question?"""
    request: GenerationRequest | None = None
    """The answer request the model got, whole (None when it got none)."""

    @property
    def prompt(self) -> str:
        """The user turn of the answer prompt ("" when the model got none)."""
        return self.request.messages[-1].content if self.request is not None else ""


Script = Callable[[QaItem, ScriptedLLM], None]
"""Sets what the scripted model answers (``answers``, ``yes``) before a question is asked."""


def recorded_asks(
    settings: Settings, items: Sequence[QaItem], script: Script | None = None
) -> Iterator[Recorded]:
    """Each of ``items`` asked on its vault's eval index under ``settings``' home, vault by
    vault."""
    for vault in sorted({i.vault for i in items if i.vault}):
        llm = ScriptedLLM("I don't know.", name="local", model_id="recorder")
        with Engine(eval_settings(settings, f"qa-{vault}"), llm=llm) as engine:
            if vault not in {v.name for v in engine.vaults()}:
                raise SystemExit(
                    f"no eval index of vault {vault!r} under {settings.home}: run `notecite "
                    f"--home {settings.home} eval qa` on a QA file that asks about it first"
                )
            for item in (i for i in items if i.vault == vault):
                if script is not None:
                    script(item, llm)
                asked_before, read_before = len(llm.answer_calls), len(llm.yes_calls)
                request = AskRequest(
                    question=item.question, vaults=[vault], folders=[*item.folders], debug=True
                )
                response = engine.ask(request)
                calls = llm.answer_calls[asked_before:]
                read = len(llm.yes_calls) > read_before
                yield Recorded(item, response, read, calls[0] if calls else None)
