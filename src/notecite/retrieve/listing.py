"""A question that only asks which notes a scope holds: "What notes are tagged #baking?".

A tag, a frontmatter filter or a folder narrows the notes searched ("#sre", ``type:meeting``,
"in my Recipes folder"), and once those words are cut out of the question, what is left may
ask for nothing but the notes themselves ("What notes are tagged?", "What's?", "How many
notes are there?", "What are my notes about?"). No chunk answers that by its words; the
notes of the scope do. Such a question is answered with the list of those notes, each cited
(:mod:`notecite.generate.listing`), not searched.

Only the words below may be left for a question to be a listing: a single word that says
what to find ("What notes tagged #sre mention Kafka?") makes it a question for the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from notecite.filters.model import Condition
from notecite.retrieve.backlinks import LinkedTo
from notecite.retrieve.terms import query_terms

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
            :data:`LISTED_AT_MOST`), or with ``tasks``, how many open tasks.
        tasks: the question asks for the open tasks of the scope
            (:mod:`notecite.retrieve.tasks`), not its notes.
        owners: the people whose tasks it asks for ("Dana's open action items"): a task
            listed names one of them; any task when empty.
        linked_to: the question asks which notes link to a note
            (:mod:`notecite.retrieve.backlinks`): ``total`` counts them, and this says
            the note and the line of each link listed.
    """

    scope: str
    total: int
    tasks: bool = False
    owners: tuple[str, ...] = ()
    linked_to: LinkedTo | None = None


def asks_for_listing(question: str, filters: Sequence[str] = ()) -> bool:
    """Whether ``question`` asks for nothing but the notes, once the ``filters`` written in
    it are cut out (a question of filters alone, "#baking", is searched as written)."""
    for written in filters:
        question = question.replace(written, " ")
    return all(term in LISTING_WORDS for term in query_terms(question))


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
