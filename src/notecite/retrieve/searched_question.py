"""A request's question as it is searched.

The question is searched without the frontmatter filters written in it (``#atlas``,
``type:meeting``: :mod:`notecite.retrieve.frontmatter`) and without a name it gives the
asker's own note, folder or tag (no note holds it:
:func:`~notecite.retrieve.salient.maybe_own_names`); each misspelt word is read as the word
the notes hold (:mod:`notecite.retrieve.typos`), and the words it means without saying them
are searched after it (:mod:`notecite.retrieve.implied`). A question that names a folder
("in my Recipes folder") is searched there, without those words
(:mod:`notecite.retrieve.named_folder`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from notecite.errors import StoreError
from notecite.filters import Condition
from notecite.retrieve.frontmatter import request_filters
from notecite.retrieve.implied import implied_terms
from notecite.retrieve.mentions import MentionLookup
from notecite.retrieve.named_folder import named_folder
from notecite.retrieve.salient import (
    maybe_own_names,
    salient_terms,
    without_names,
    without_own_names,
)
from notecite.retrieve.typos import respell, with_readings
from notecite.schemas.ask import AskRequest, DebugInfo
from notecite.store.base import Store
from notecite.types import Vault


@dataclass(frozen=True)
class SearchedQuestion:
    """A question as it is searched.

    Attributes:
        question: the question with its misspelt words read as the notes' words and the
            words it means after it.
        readings: each misspelt word and the word of the notes it is read as.
    """

    question: str
    readings: dict[str, str]


@dataclass(frozen=True)
class SearchedRequest:
    """A request as it is searched.

    Attributes:
        request: the request with the question as it is searched and the folders it names
            (the request itself when neither changed).
        conditions: the request's frontmatter conditions, then those written in its
            question (all must hold).
        readings: each misspelt word of the question and the word of the notes it is read
            as.
        asked: the question as it is searched but for the words it means without saying
            them (:mod:`notecite.retrieve.implied`): what a question is read as when its
            own words decide how it is answered ("What's due Friday?", not "What's due
            Friday? (fri)").
    """

    request: AskRequest
    conditions: tuple[Condition, ...]
    readings: dict[str, str]
    asked: str


class QuestionReader:
    """Reads questions as they are searched in the notes of ``vaults`` in ``store``:
    ``mentions`` says which words the notes hold, ``folder_labels`` lists their folders as
    ``vault/folder``."""

    def __init__(
        self,
        store: Store,
        vaults: Sequence[Vault],
        mentions: MentionLookup,
        folder_labels: Callable[[], list[str]],
    ) -> None:
        self._store = store
        self._vaults = list(vaults)
        self._mentions = mentions
        self._folder_labels = folder_labels

    def read(self, request: AskRequest, debug: DebugInfo) -> SearchedRequest:
        """Take the request's frontmatter filters and those written in its question; the
        request comes back with the question as it is searched (without the filters, and
        without a name the question gives the asker's own note, folder or tag)."""
        found = request_filters(self._store, self._vaults, request.question, request.filters)
        debug.filters = found.shown
        # a name the asker gives their own note or tag is theirs: no note holds it
        searched = without_own_names(found.question)
        searched = without_names(searched, self._mentions.theirs(maybe_own_names(searched)))
        respelled = self.as_searched(searched, debug)
        asked = with_readings(searched, respelled.readings)
        searched = respelled.question
        folders = list(request.folders)
        if not folders:  # "in my Recipes folder": searched there, without those words
            labels = self._folder_labels()
            named = named_folder(searched, labels)
            if named.folders:
                searched, folders = named.question, list(named.folders)
                asked = named_folder(asked, labels).question
                debug.notes.append(
                    f"the question names the folder {', '.join(named.folders)}: searched there"
                )
        if searched == request.question and folders == request.folders:
            return SearchedRequest(request, found.conditions, respelled.readings, asked)
        if searched != request.question:
            debug.searched_question = searched
        return SearchedRequest(
            request.model_copy(update={"question": searched, "folders": folders}),
            found.conditions,
            respelled.readings,
            asked,
        )

    def as_searched(self, question: str, debug: DebugInfo) -> SearchedQuestion:
        """``question`` with its misspelt words read as the notes' words and the words it
        means without saying them (:mod:`notecite.retrieve.implied`: "unless I raise it"
        asks for the default, and the line says "(default: 20)") after it."""
        readings = self._readings(question, debug)
        searched = with_readings(question, readings)
        implied = implied_terms(searched)
        if implied:
            searched = f"{searched} ({', '.join(implied)})"
            debug.notes.append(f"the question asks for {', '.join(implied)}: searched with it")
        return SearchedQuestion(searched, readings)

    def _readings(self, question: str, debug: DebugInfo) -> dict[str, str]:
        """Each misspelt word of ``question`` and the word the notes hold that it is read as
        (:mod:`notecite.retrieve.typos`: "tempalte" as "template"), said in the debug view."""
        try:
            salient = salient_terms(question, names_in_lowercase=False)
            readings = respell(question, salient, self._mentions.mentioned)
        except StoreError:
            readings = {}
        for word, reading in readings.items():
            debug.notes.append(f"read {word!r} as {reading!r}: no note holds {word!r}")
        return readings
