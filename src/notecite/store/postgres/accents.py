"""Migration 9 of the PostgreSQL store: words read without the accents of Latin letters.

SQLite's FTS5 (``unicode61``, which removes diacritics) indexes "Ögedei" as "ogedei", and the
retrieval layer compares a question's words with the notes' without accents
(:func:`notecite.retrieve.terms.fold`). The ``simple`` configuration under
``notecite_fts_words`` kept them: on PostgreSQL, "Who was Ogedei's wife?" matched no chunk
that spells the name "Ögedei", and the question's "in no note" check
(:meth:`~notecite.store.base.Store.mentions`) called the name absent.

``notecite_fold(doc)`` does what ``fold`` does: in the text decomposed (NFD), a combining
mark after an ASCII character (the accent of a Latin letter) is dropped, and the rest is
composed again (NFC), so letters of other scripts keep theirs. ``notecite_fts_words`` reads
its text through it, which folds the notes' words and the question's alike. The full-text
column and every BM25 count are then made again from the chunks.

PostgreSQL normalises Unicode only in a UTF-8 database, from version 13; elsewhere
``notecite_fold`` leaves the text as it is, and accents count there as before.
"""

from __future__ import annotations

from notecite.store.postgres.bm25 import REBUILD_TSV, RECOUNT, words_function

# E'' strings: the pattern reads the same whatever standard_conforming_strings says
_FOLD_UTF8 = r"""
SELECT normalize(regexp_replace(normalize(doc, NFD), E'([\\x01-\\x7f])[\\u0300-\\u036f]+',
    E'\\1', 'g'), NFC)
"""

MIGRATION = (
    f"""
DO $migration$
BEGIN
    IF current_setting('server_encoding') = 'UTF8'
            AND current_setting('server_version_num')::integer >= 130000 THEN
        CREATE FUNCTION notecite_fold(doc text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
            AS $fold${_FOLD_UTF8}$fold$;
    ELSE
        CREATE FUNCTION notecite_fold(doc text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
            AS $fold$ SELECT doc $fold$;
    END IF;
END
$migration$;
"""
    + words_function("notecite_fold(doc)")
    + REBUILD_TSV
    + RECOUNT
)
"""Migration 9: ``notecite_fold``, the word function reading through it, the rebuilt ``tsv``
and the counts."""
