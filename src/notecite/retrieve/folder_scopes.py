"""The scopes a question is searched in, and the folder selection its debug view shows.

The request's folders come first, each weighted 1.0 (a filter, not a ranking); the folders
the model picks (``folder_ranking = "llm"``,
:func:`~notecite.retrieve.folders.rank_folders_with_llm`) follow, weighted by their
position, and without folders of the request every vault whole is searched below them. With
neither, each vault is one scope; folder ranking by scores (``folder_ranking = "scores"``)
then shows the folders in the order of their best candidate (:func:`rank_folders_by_scores`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from notecite.config import AskSettings
from notecite.generate.base import LLM
from notecite.retrieve.cache import RetrievalCaches
from notecite.retrieve.folders import (
    Scope,
    position_weight,
    rank_folders_with_llm,
    resolve_user_folder,
)
from notecite.retrieve.retriever import Candidate
from notecite.schemas.ask import AskRequest, DebugInfo, FolderSelection
from notecite.types import Vault


class FolderScopes:
    """Chooses the scopes of a question among the folders of ``vaults`` (``folders_of``
    lists a vault's folders); ``llm`` ranks them where ``settings`` ask for it, and its picks
    are kept in ``caches`` (when given)."""

    def __init__(
        self,
        llm: LLM,
        settings: AskSettings,
        vaults: Sequence[Vault],
        folders_of: Callable[[Vault], list[str]],
        caches: RetrievalCaches | None,
    ) -> None:
        self._llm = llm
        self._settings = settings
        self._vaults = list(vaults)
        self._folders_of = folders_of
        self._caches = caches

    def scopes(self, request: AskRequest, debug: DebugInfo) -> list[Scope]:
        """The user's folders first (each weighted 1.0: a filter, not a ranking), then the
        folders the LLM ranks (folder ranking on), by position; with no folder at all, one
        scope per vault."""
        available = [
            f"{v.name}/{f}" if f else v.name for v in self._vaults for f in self._folders_of(v)
        ]
        selection = FolderSelection(available=[a for a in available if "/" in a])
        debug.folder_selection = selection
        user: list[tuple[Vault, str]] = []
        for folder in request.folders:
            user.extend(resolve_user_folder(folder, self._vaults))
        user = list(dict.fromkeys(user))
        ranked: list[tuple[Vault, str]] = []
        mode = self._settings.folder_ranking
        if mode == "llm" and selection.available and self._llm.name != "extractive":
            chosen = {f"{v.name}/{f}" for v, f in user}
            labels = [a for a in selection.available if a not in chosen]
            labels = labels[: self._settings.max_folders_ranked]
            picked = self._picks(request.question, labels, debug)
            by_name = {v.name: v for v in self._vaults}
            for label in picked or []:
                name, _, folder = label.partition("/")
                ranked.append((by_name[name], folder))
        selection.method = "user" if user else ("llm" if ranked else selection.method)
        pairs = list(dict.fromkeys([*user, *ranked]))
        selection.selected = [f"{v.name}/{f}" if f else v.name for v, f in pairs]
        if not pairs:
            return [Scope(v, "", 1.0) for v in self._vaults]
        scopes = [Scope(v, f, 1.0) for v, f in user]
        scopes.extend(
            Scope(v, f, position_weight(len(user) + i))
            for i, (v, f) in enumerate(p for p in pairs if p not in set(user))
        )
        if not user:
            # The model's pick is a preference, not a filter: a folder it missed is still
            # searched, below every folder it picked.
            rest = position_weight(len(pairs))
            scopes.extend(Scope(v, "", rest) for v in self._vaults)
        return scopes

    def labels(self) -> list[str]:
        """Every folder of the searched vaults, as ``vault/folder``."""
        return [f"{v.name}/{f}" for v in self._vaults for f in self._folders_of(v) if f]

    def _picks(self, question: str, labels: Sequence[str], debug: DebugInfo) -> list[str] | None:
        """The LLM's folder picks, from the cache when the same question was ranked over the
        same folders before (a model call costs seconds on the local model)."""
        key = (question, tuple(labels))
        if self._caches is not None:
            cached = self._caches.folder_picks.get(key)
            if cached is not None:
                debug.notes.append("folder ranking: the model's earlier picks (cached)")
                return list(cached)
        started = time.perf_counter()
        picked = rank_folders_with_llm(self._llm, question, labels, debug.notes)
        debug.timings_ms.folder_ranking = (time.perf_counter() - started) * 1000
        if picked is not None and self._caches is not None:
            self._caches.folder_picks.put(key, tuple(picked))
        return picked


def rank_folders_by_scores(candidates: Sequence[Candidate], debug: DebugInfo) -> None:
    """Folder ranking without a model: the folders in the order of their best candidate
    (shown in the debug view; every folder was searched)."""
    selection = debug.folder_selection
    if selection.method != "all" or not selection.available:
        return
    order: dict[str, None] = {}
    for cand in candidates:
        folder = cand.chunk.folder
        if folder:
            order.setdefault(f"{cand.chunk.vault}/{folder}", None)
    selection.method = "scores"
    selection.selected = list(order)[:10]
