"""Reading a BEIR-format folder and writing its corpus as a notes vault."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

from notecite.errors import ConfigError

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class BeirData:
    """Corpus, queries and relevance judgments of one split."""

    name: str
    corpus: dict[str, tuple[str, str]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def load_beir(folder: Path, split: str) -> BeirData:
    """Read ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``."""
    corpus_file, queries_file = folder / "corpus.jsonl", folder / "queries.jsonl"
    qrels_file = folder / "qrels" / f"{split}.tsv"
    for path in (corpus_file, queries_file, qrels_file):
        if not path.is_file():
            raise ConfigError(f"not a BEIR folder: {path} is missing")
    corpus = {}
    with corpus_file.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                doc = json.loads(line)
                corpus[str(doc["_id"])] = (doc.get("title") or "", doc.get("text") or "")
    qrels: dict[str, dict[str, int]] = {}
    with qrels_file.open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for row in reader:
            if len(row) < 3 or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries = {}
    with queries_file.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                query = json.loads(line)
                if str(query["_id"]) in qrels:
                    queries[str(query["_id"])] = query["text"]
    return BeirData(folder.name, corpus, queries, qrels)


def doc_file_name(doc_id: str) -> str:
    """A file name for a document id (ids are kept recoverable from the stem)."""
    return _SAFE.sub("_", doc_id) + ".md"


def write_vault(data: BeirData, target: Path) -> dict[str, str]:
    """Write one markdown note per document (title in frontmatter); return stem -> doc id.

    Files whose content is already right are left alone, so re-runs index nothing new.
    """
    target.mkdir(parents=True, exist_ok=True)
    stems = {}
    for doc_id, (title, text) in data.corpus.items():
        name = doc_file_name(doc_id)
        stems[name[:-3]] = doc_id
        content = f"---\ntitle: {json.dumps(title)}\n---\n{text}\n"
        path = target / name
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
    return stems
