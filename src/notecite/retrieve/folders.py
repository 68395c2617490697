"""Folder selection: the user's folders, else the folders an LLM finds relevant, else all."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.generate.base import LLM, GenerationRequest
from notecite.generate.prompts import folder_ranking_messages
from notecite.types import Vault

logger = logging.getLogger(__name__)

_ARRAY = re.compile(r"\[.*?\]", re.DOTALL)


@dataclass(frozen=True)
class Scope:
    """One search scope: a vault and a folder prefix ('' = whole vault), with its weight."""

    vault: Vault
    folder: str
    weight: float

    @property
    def label(self) -> str:
        return f"{self.vault.name}/{self.folder}" if self.folder else self.vault.name


def position_weight(position: int) -> float:
    """1.0, 0.9, 0.8 ... never under 0.1."""
    return max(0.1, round(1.0 - 0.1 * position, 2))


def resolve_user_folder(folder: str, vaults: Sequence[Vault]) -> list[tuple[Vault, str]]:
    """``folder``, ``<vault id>/folder`` or ``<vault name>/folder`` -> (vault, folder) pairs."""
    cleaned = folder.strip().strip("/")
    head, _, rest = cleaned.partition("/")
    for vault in vaults:
        if head in {vault.name, str(vault.id)}:
            return [(vault, rest)]
    return [(vault, cleaned) for vault in vaults]


def parse_folder_array(reply: str) -> list[str]:
    """The JSON array in a model's reply (code fences and chatter around it tolerated)."""
    text = reply.strip()
    text = re.sub(r"^```(?:json)?|```$", "", text, flags=re.MULTILINE).strip()
    match = _ARRAY.search(text)
    if match is None:
        raise ValueError("no JSON array in the reply")
    data = json.loads(match.group(0))
    if not isinstance(data, list):
        raise ValueError("reply is not a list")
    return [str(item).strip().strip("/") for item in data if str(item).strip()]


def rank_folders_with_llm(
    llm: LLM, question: str, labels: Sequence[str], timeout_note: list[str]
) -> list[str] | None:
    """The labels the model picks, in its order; None when it fails (= use all folders)."""
    try:
        reply = llm.generate(
            GenerationRequest(
                messages=folder_ranking_messages(question, labels),
                question=question,
                temperature=0.0,
                max_tokens=200,
            )
        )
        picked = parse_folder_array(reply)
    except Exception as exc:  # any LLM or parsing failure means: search everything
        timeout_note.append(f"folder ranking failed ({type(exc).__name__}); all folders used")
        logger.info("folder ranking failed: %s", exc)
        return None
    known = set(labels)
    return [p for p in dict.fromkeys(picked) if p in known]
