"""What both stores' full-text search shares: the stop words a question's words lose, and
the other spelling a word of British or American English gains (:mod:`notecite.spelling`).

Both stores index every word (FTS5 with its porter tokenizer; PostgreSQL with the same
word split and the porter stemmer, migration 8), so a chunk's length counts every word;
only a question's words go without these before they are looked up.
"""

from __future__ import annotations

from notecite.spelling import spellings

# Function words carry no signal for BM25 and slow OR-queries down.
_STOPWORD_TEXT = (
    "a an and are as at be by for from has have how i in is it of on or that the "
    "this to was were what when where which who why will with do does did my me you your"
)
QUERY_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def query_words(words: list[str]) -> list[str]:
    """``words`` (lower-case) without stop words and repeats, in order; all of them,
    without repeats, when every one is a stop word. A word is followed by its spelling in
    the other English ("colour", "color"; "customize", "customise"), so a note written
    either way is found."""
    kept = [w for w in words if w not in QUERY_STOPWORDS] or words
    return list(dict.fromkeys(form for w in kept for form in spellings(w)))
