"""Is there anything to search? "No vaults yet", "not indexed yet" and "unknown folder" are
not "nothing found": the CLI exits non-zero on them and the page shows an empty state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from notecite.engine import Engine
from notecite.retrieve.folders import resolve_user_folder

Problem = Literal["no_vaults", "not_indexed", "unknown_folder"]


@dataclass(frozen=True)
class NothingToSearch:
    """Why a question cannot be looked up, and what to do about it."""

    problem: Problem
    message: str


def _in_folder(folder: str, prefix: str) -> bool:
    prefix = prefix.strip("/")
    return not prefix or folder == prefix or folder.startswith(prefix + "/")


def nothing_to_search(
    engine: Engine, vaults: Sequence[str] = (), folders: Sequence[str] = ()
) -> NothingToSearch | None:
    """None when the scope holds indexed notes, else the reason it does not.

    Raises:
        VaultError: a vault in ``vaults`` is unknown (the message lists the known ones).
    """
    chosen = [engine.vault(name) for name in vaults] or engine.vaults()
    if not chosen:
        return NothingToSearch(
            "no_vaults",
            "no vaults yet: add one with `notecite vault add NAME PATH`, then run `notecite index`",
        )
    counts = {v.name: v.chunks for v in engine.store.vault_status()}
    empty = [v.name for v in chosen if not counts.get(v.name)]
    if len(empty) == len(chosen):
        names = ", ".join(empty)
        return NothingToSearch(
            "not_indexed", f"not indexed yet: {names}; run `notecite index` first"
        )
    known = {v.id: engine.store.folders(v.id) for v in chosen}
    for folder in folders:
        pairs = resolve_user_folder(folder, chosen)
        if not any(_in_folder(f, prefix) for vault, prefix in pairs for f in known[vault.id]):
            tops = sorted({f.split("/")[0] for fs in known.values() for f in fs if f})
            listed = ", ".join(tops[:12]) + (", ..." if len(tops) > 12 else "")
            return NothingToSearch(
                "unknown_folder",
                f"unknown folder {folder!r}: no indexed note is in it; "
                f"top-level folders: {listed or 'none'}",
            )
    return None
