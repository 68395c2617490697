"""Template files: frontmatter, id from the file name, defaults, content without the YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite.errors import ParseError
from notecite.templates import RAGConfig, Template, TemplateMatch, embed_text, parse_template
from notecite.templates.parsing import load_templates, parse_template_text
from tests.templates.helpers import write_template

FULL = """---
name: Trade-off matrix
description: Compare options against weighted criteria.
domain: decision-making
complexity: complex
methodology: comparative
keywords: [criteria, weights, options]
---
# Trade-off matrix

1. List the options.
2. Weight the criteria.
"""


def test_frontmatter_fields_and_id_from_the_file_name(tmp_path: Path) -> None:
    path = write_template(tmp_path, "my-matrix", FULL)
    template = parse_template(path)
    assert template.id == "my-matrix"
    assert template.name == "Trade-off matrix"
    assert template.description == "Compare options against weighted criteria."
    assert (template.domain, template.complexity, template.methodology) == (
        "decision-making",
        "complex",
        "comparative",
    )
    assert template.keywords == ("criteria", "weights", "options")
    assert template.file_path == str(path.resolve())


def test_content_is_the_markdown_after_the_frontmatter(tmp_path: Path) -> None:
    template = parse_template(write_template(tmp_path, "m", FULL))
    assert template.content == "# Trade-off matrix\n\n1. List the options.\n2. Weight the criteria."
    assert "---" not in template.content
    assert "keywords" not in template.content


def test_defaults_for_missing_keys() -> None:
    template = parse_template_text("---\nname: Bare\n---\nJust do it.\n", "bare")
    assert (template.domain, template.complexity, template.methodology) == (
        "general",
        "moderate",
        "sequential",
    )
    assert template.keywords == ()
    assert template.description == ""
    assert template.content == "Just do it."


def test_no_frontmatter_at_all() -> None:
    template = parse_template_text("# Heading\nBody text.\n", "plain-notes")
    assert template.name == "plain notes"
    assert template.content == "# Heading\nBody text."
    assert template.domain == "general"


def test_title_and_tags_are_accepted_and_keywords_may_be_a_string() -> None:
    text = '---\ntitle: Socratic\ntags: "ask why, assumptions , #evidence"\n---\nbody'
    template = parse_template_text(text, "s")
    assert template.name == "Socratic"
    assert template.keywords == ("ask why", "assumptions", "evidence")


def test_invalid_yaml_is_a_parse_error_naming_the_file(tmp_path: Path) -> None:
    path = write_template(tmp_path, "broken", "---\nname: [unclosed\n---\nbody\n")
    with pytest.raises(ParseError, match=r"broken\.md"):
        parse_template(path)


def test_non_utf8_is_a_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "latin.md"
    path.write_bytes("---\nname: caf\xe9\n---\n".encode("latin-1"))
    with pytest.raises(ParseError, match="UTF-8"):
        parse_template(path)


def test_loading_skips_bad_files_and_keeps_the_first_of_a_duplicate_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    write_template(first, "same", "---\nname: First\n---\nx")
    write_template(second, "same", "---\nname: Second\n---\ny")
    write_template(second, "broken", "---\nname: [\n---\n")
    write_template(second / ".hidden", "secret", "---\nname: Hidden\n---\n")
    (second / "notes.txt").write_text("not a template")
    templates = load_templates([first, second, tmp_path / "missing"])
    assert [(t.id, t.name) for t in templates] == [("same", "First")]
    assert "broken.md" in caplog.text
    assert "does not exist" in caplog.text


def test_embedded_text_is_name_description_keywords_methodology_and_1000_chars() -> None:
    template = Template(
        id="t",
        name="Fermi estimate",
        description="Rough numbers.",
        keywords=("estimate", "magnitude"),
        methodology="quantitative",
        content="x" * 1500,
    )
    text = embed_text(template)
    assert text.split("\n")[:4] == [
        "Fermi estimate",
        "Rough numbers.",
        "Keywords: estimate, magnitude",
        "Methodology: quantitative",
    ]
    assert text.endswith("\n" + "x" * 1000)


def test_json_is_camel_case_and_python_is_snake_case() -> None:
    template = Template(id="t", name="T", file_path="/x/t.md")
    assert template.model_dump(by_alias=True)["filePath"] == "/x/t.md"
    assert Template.model_validate({"id": "t", "name": "T", "filePath": "/y"}).file_path == "/y"
    config = RAGConfig.model_validate({"topK": 5, "similarityThreshold": 0.4, "chromaUrl": "u"})
    assert (config.top_k, config.similarity_threshold, config.chroma_url) == (5, 0.4, "u")
    dumped = RAGConfig().model_dump(mode="json", by_alias=True)
    assert dumped["topK"] == 3
    assert dumped["templateDirs"] == ["data/bot-buffer", "data/templates"]
    assert set(TemplateMatch.model_fields) == {"id", "name", "score", "description", "content"}


def test_config_defaults_and_thresholds_per_model() -> None:
    config = RAGConfig()
    assert config.top_k == 3
    assert config.chroma_url is None
    assert (
        config.model_copy(update={"embedding_model": "ollama:nomic-embed-text"}).threshold() == 0.65
    )
    for model in ("all-MiniLM-L6-v2-onnx-int8", "all-MiniLM-L6-v2-onnx-int8-a8"):
        minilm = config.model_copy(update={"embedding_model": model})
        assert minilm.threshold() == pytest.approx(0.17)
    assert RAGConfig(similarity_threshold=0.4).threshold() == 0.4
