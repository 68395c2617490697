"""Hostile and broken notes: the parsers, chunker and store take anything and never break a run.

hypothesis feeds random markdown, frontmatter, HTML and plain text (unicode of every
category, control characters, NUL bytes, invalid UTF-8, enormous lines) through
``parse_file`` -> ``chunk_note`` -> a real SQLite store -> full-text search. Every file either
parses into chunks that keep the invariants or fails with a ParseError (recorded, never
fatal). YAML bombs and recursive aliases fail fast as ParseErrors; one bad note never stops
an index run.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notecite import Engine
from notecite.chunking import ChunkerConfig, chunk_note
from notecite.embed.hashing import HashEmbedder
from notecite.errors import ParseError
from notecite.ingest.parse import parse_file
from notecite.store.sqlite import SQLiteStore
from notecite.testing import hash_settings, write_files
from notecite.types import NoteRecord, SearchFilter

pytestmark = pytest.mark.reliability

MTIME = datetime(2026, 1, 1, tzinfo=UTC)
COUNT = HashEmbedder().count_tokens

# Every unicode category, surrogates excluded (they cannot be written as UTF-8).
any_char = st.characters(exclude_categories=("Cs",))
control = st.sampled_from(["\x00", "\x01", "\x07", "\x1b", "\x7f", "\u200b", "\u202e", "\ufeff"])
word = st.text(any_char, min_size=1, max_size=12)
line = st.one_of(
    st.lists(word, max_size=12).map(" ".join),
    st.lists(st.one_of(word, control), max_size=12).map("".join),
    st.tuples(st.integers(1, 7), word).map(lambda t: "#" * t[0] + " " + t[1]),
    st.sampled_from(["---", "...", "```", "~~~", "> quote", "- [ ] task", "| a | b |", "<div>"]),
    st.builds(lambda w, n: (w + " ") * n, word, st.integers(300, 3000)),  # an enormous line
    st.just(""),
)
frontmatter = st.one_of(
    st.just(""),
    st.lists(st.tuples(word, word), max_size=5).map(
        lambda kv: "---\n" + "\n".join(f"{k}: {v}" for k, v in kv) + "\n---\n"
    ),
    st.sampled_from(
        [
            "---\ntitle: [unclosed\n---\n",
            "---\n- a list\n---\n",
            "---\n!!python/object/apply:os.system ['echo pwned']\n---\n",
            "---\ntitle: ok\n",  # never closed
            "---\ncreated: 99999999999999999\nupdated: not a date\ntags: 7\n---\n",
        ]
    ),
)
markdown = st.tuples(frontmatter, st.lists(line, max_size=40)).map(lambda t: t[0] + "\n".join(t[1]))
html = st.lists(line, max_size=30).map(
    lambda ls: (
        "<html><head><script>alert(1)</script><title>t</title></head><body>"
        + "".join(f"<p>{x}</p><h2>{x}</h2>" for x in ls)
        + "</body></html>"
    )
)


def _index_one(store: SQLiteStore, vault_id: int, rel_path: str, data: bytes) -> None:
    """parse -> chunk -> store -> search, asserting the invariants on the way."""
    try:
        note = parse_file(rel_path, data, MTIME)
    except ParseError:
        return
    config = ChunkerConfig(max_tokens=96, overlap_tokens=16)
    chunks = chunk_note(note, "fuzz", COUNT, config)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    # HTML and PDF spans count lines of the extracted text, not of the file
    text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    total_lines = text.count("\n") + 1 if rel_path.endswith((".md", ".txt")) else 10**9
    for chunk in chunks:
        assert chunk.text.strip()
        assert 1 <= chunk.line_start <= chunk.line_end <= total_lines
        assert chunk.token_count <= 96
    record = NoteRecord(
        vault_id=vault_id,
        rel_path=rel_path,
        folder="",
        title=note.title,
        doc_type=note.doc_type.value,
        note_type=note.note_type,
        description=note.description,
        keywords=note.keywords,
        frontmatter=note.frontmatter,
        created=note.created,
        modified=note.updated,
        content_hash="h",
        size=len(data),
        mtime_ns=0,
    )
    store.replace_note(record, chunks)
    for chunk in chunks[:3]:
        store.lexical_search(chunk.text[:200], SearchFilter(), 5)
    store.lexical_search(note.title or "x", SearchFilter(), 5)


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[SQLiteStore, int]:
    root = tmp_path_factory.mktemp("fuzz")
    store = SQLiteStore(root / "fuzz.db")
    vault = store.add_vault("fuzz", root)
    return store, vault.id


_FUZZ = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@_FUZZ
@given(text=markdown)
def test_random_markdown_parses_or_fails_cleanly(
    fuzz_store: tuple[SQLiteStore, int], text: str
) -> None:
    _index_one(*fuzz_store, "fuzz/note.md", text.encode("utf-8"))


@_FUZZ
@given(text=html)
def test_random_html_parses_or_fails_cleanly(
    fuzz_store: tuple[SQLiteStore, int], text: str
) -> None:
    _index_one(*fuzz_store, "fuzz/page.html", text.encode("utf-8"))


@_FUZZ
@given(data=st.binary(max_size=4000), suffix=st.sampled_from([".md", ".txt", ".html", ".pdf"]))
def test_random_bytes_parse_or_fail_cleanly(
    fuzz_store: tuple[SQLiteStore, int], data: bytes, suffix: str
) -> None:
    _index_one(*fuzz_store, f"fuzz/blob{suffix}", data)


@settings(max_examples=150, deadline=None)
@given(query=st.text(any_char, max_size=300))
def test_any_search_text_is_a_safe_query(fuzz_store: tuple[SQLiteStore, int], query: str) -> None:
    store, _ = fuzz_store
    store.lexical_search(query, SearchFilter(), 5)


def _alias_bomb(levels: int) -> str:
    names = "abcdefghijklmnop"
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [
        f"{names[i]}: &{names[i]} [" + ",".join([f"*{names[i - 1]}"] * 9) + "]"
        for i in range(1, levels)
    ]
    return "---\n" + "\n".join(lines) + "\n---\n# Bomb\n\nbody text\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (_alias_bomb(9), "aliases are expanded"),  # 9**9 values: minutes and gigabytes before
        ("---\na: &a [*a]\n---\n# R\n\nbody\n", "contains itself"),
        ("---\na: &a {b: *a}\n---\n# R\n\nbody\n", "contains itself"),
        ("---\n!!python/object/apply:os.system ['touch /tmp/pwned']\n---\nx\n", "invalid YAML"),
    ],
)
def test_yaml_bombs_fail_fast_as_parse_errors(text: str, reason: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ParseError, match=reason):
        parse_file("bomb.md", text.encode(), MTIME)
    assert time.perf_counter() - started < 2.0


def test_hostile_notes_never_stop_an_index_run(tmp_path: Path) -> None:
    enormous = "word " * 400_000  # one 2 MB line
    vault = write_files(
        tmp_path / "vault",
        {
            "bomb.md": _alias_bomb(9),
            "recursive.md": "---\na: &a [*a]\n---\n# R\n\nbody\n",
            "binary.md": b"\x00\x01\x02" * 100,
            "latin1.md": "caf\xe9 au lait".encode("latin-1"),
            "enormous.md": f"# Big\n\n{enormous}\n",
            "controls.md": "# C\x1b[31m\n\nbell\x07 rtl\u202e zero\u200bwidth text here\n",
            "good.md": "# Good\n\nThe good note survives everything around it.\n",
        },
    )
    with Engine(hash_settings(tmp_path / "home")) as engine:
        engine.add_vault("v", vault)
        started = time.perf_counter()
        (report,) = engine.index("v")
        elapsed = time.perf_counter() - started
        results = engine.search("good note survives", k=3)

    failed = {f.rel_path for f in report.failures}
    assert failed == {"bomb.md", "recursive.md", "binary.md", "latin1.md"}
    assert report.added == 3
    assert results[0].rel_path == "good.md"
    assert elapsed < 60


_GIANT = "wordy " * 20_000  # 120 KB on one line


@pytest.mark.parametrize(
    ("rel_path", "text"),
    [
        ("heading.md", f"# {_GIANT}\n\nbody\n"),
        ("title.md", f"---\ntitle: {_GIANT}\n---\nbody\n"),
        ("heading.html", f"<h1>{_GIANT}</h1><p>body</p>"),
        ("title.html", f"<title>{_GIANT}</title><p>body</p>"),
    ],
)
def test_a_giant_heading_or_title_is_not_repeated_in_every_chunk(rel_path: str, text: str) -> None:
    """Every chunk repeats the title and heading path in its embedded text: before the cap,
    one 100 KB heading line cost ~600 MB of chunks."""
    note = parse_file(rel_path, text.encode(), MTIME)
    chunks = chunk_note(note, "v", COUNT, ChunkerConfig(max_tokens=96, overlap_tokens=16))
    stored = sum(len(c.embed_text) + len(c.heading_path) + len(c.text) for c in chunks)
    assert stored < 16 * len(text)  # linear (a header per 16-token chunk); was ~6000x
    assert all(len(c.heading_path) < 300 for c in chunks)
