"""A question that only asks which notes a scope holds: "What notes are tagged #baking?".

A tag, a frontmatter filter or a folder narrows the notes searched ("#sre", ``type:meeting``,
"in my Recipes folder"), and once those words are cut out of the question, what is left may
ask for nothing but the notes themselves ("What notes are tagged?", "What's?", "How many
notes are there?", "What are my notes about?"). No chunk answers that by its words; the
notes of the scope do. Such a question is answered with the list of those notes, each cited
(:mod:`notecite.generate.listing`), not searched.

Only the words below may be left for a question to be a listing: a single word that says
what to find ("What notes tagged #sre mention Kafka?") makes it a question for the search.

A question with no scope written in it is a listing of the searched vaults whole when it
names the notes themselves and asks nothing else (:func:`asks_for_every_note`): "How many
notes do I have?", "What notes do I have?", "List all my notes", "Show me everything in my
notes". "What notes should I take in a meeting?" or "How many notes does Dendron support?"
hold another word and are searched; a summary of every note ("Summarize my notes") is too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from notecite.filters.model import Condition
from notecite.retrieve.backlinks import LinkedTo
from notecite.retrieve.due_window import DueWindow
from notecite.retrieve.terms import query_terms, tokenize, without_written

LISTING_WORDS = frozenset(
    """
    s tagged tag tags file files document documents page pages entry entries list show
    everything anything all got have many number count write wrote written kept keep saved
    stuff things thing folder folders contain contains there mine find give summarize
    summarise summary summaries overview recap
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
"""The words a question that asks only for the notes of a scope may hold (besides
stopwords, "notes" among them)."""

LISTED_AT_MOST = 15
"""The notes a listing names; it says how many more the scope holds."""


@dataclass(frozen=True)
class Listing:
    """The scope a listing question asks about.

    Attributes:
        scope: the scope in words, as the answer says it ("tagged #baking",
            "in personal/recipes").
        total: how many notes the scope holds (the listing names the most recent
            :data:`LISTED_AT_MOST`), or with ``tasks``, how many open tasks (with ``due``,
            how many dated within it).
        tasks: the question asks for the open tasks of the scope
            (:mod:`notecite.retrieve.tasks`), not its notes.
        owners: the people whose tasks it asks for ("Dana's open action items"): a task
            listed names one of them; any task when empty.
        due: the question asks for the open tasks dated within this window ("What's due
            this week?", :mod:`notecite.retrieve.due_window`): they are listed by date;
            with none, the answer says so, and names the dated task nearest it when there
            is one.
        linked_to: the question asks which notes link to a note
            (:mod:`notecite.retrieve.backlinks`): ``total`` counts them, and this says
            the note and the line of each link listed.
        mentioned: the question asks which notes mention this
            (:mod:`notecite.retrieve.mentioning`): ``total`` counts them, and each is
            cited at its first line that holds it.
    """

    scope: str
    total: int
    tasks: bool = False
    owners: tuple[str, ...] = ()
    due: DueWindow | None = None
    linked_to: LinkedTo | None = None
    mentioned: str | None = None

    @property
    def answers_when_empty(self) -> bool:
        """Is this listing an answer even with no note to list? "No open task is due this
        week." answers "What's due this week?"; a listing of nothing else does."""
        return self.due is not None


def asks_for_listing(question: str, filters: Sequence[str] = ()) -> bool:
    """Whether ``question`` asks for nothing but the notes, once the ``filters`` written in
    it are cut out (a question of filters alone, "#baking", is searched as written)."""
    words = query_terms(without_written(question, filters))
    return all(term in LISTING_WORDS for term in words)


_NAMES_NOTES = frozenset(
    "note notes file files page pages document documents entries everything vault vaults".split()  # noqa: SIM905
)
_SUMMARY = frozenset("summarize summarise summary summaries overview recap".split())  # noqa: SIM905
# what asks for the notes themselves, not about them ("Tell me about my notes" is too vague)
_ASKS_FOR = frozenset(
    "have got many number count list show all every everything kept saved there".split()  # noqa: SIM905
)


def asks_for_every_note(question: str) -> bool:
    """Whether ``question`` (with no scope written in it) asks for nothing but the notes of
    the searched vaults: it names them ("notes", "files", "everything", "my vault") and asks
    for them ("have", "how many", "list", "show", "all"), holds no other word than a
    listing's (:data:`LISTING_WORDS`) and asks no summary."""
    words = tokenize(question)
    return (
        any(w in _NAMES_NOTES for w in words)
        and any(w in _ASKS_FOR for w in words)
        and not any(w in _SUMMARY for w in words)
        and all(t in LISTING_WORDS or t in ("vault", "vaults") for t in query_terms(question))
    )


def scope_words(conditions: Sequence[Condition], folders: Sequence[str]) -> str:
    """The scope of ``conditions`` and ``folders`` in words: "tagged #baking",
    "in recipes", "with type:meeting"."""
    said: list[str] = []
    tags = [c.source for c in conditions if c.source.startswith("#")]
    if tags:
        said.append("tagged " + " and ".join(tags))
    others = [str(c) for c in conditions if not c.source.startswith("#")]
    if others:
        said.append("with " + " and ".join(others))
    if folders:
        said.append("in " + " or ".join(folders))
    return ", ".join(said)
