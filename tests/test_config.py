"""Settings precedence: defaults < TOML file < NOTECITE_* environment < overrides (CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite.config import load_settings, masked_settings
from notecite.errors import ConfigError

TOML = """
[embedder]
name = "hash"
batch_size = 16

[search]
k = 5

[retrieval]
keyword_weight = 0.5

[index]
max_file_bytes = 1000
"""


@pytest.fixture
def toml_file(tmp_path: Path) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(TOML)
    return path


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECITE_HOME", str(tmp_path / "h"))
    settings = load_settings()
    assert settings.home == tmp_path / "h"
    assert settings.db_path == tmp_path / "h" / "notecite.db"
    assert settings.embedder.name == "minilm"
    assert settings.embedder.api_key is None
    assert settings.search.k == 8
    assert settings.index.max_file_bytes == 20_000_000
    assert ".md" in settings.index.extensions


def test_toml_over_defaults(toml_file: Path) -> None:
    settings = load_settings(toml_file)
    assert (settings.embedder.name, settings.embedder.batch_size) == ("hash", 16)
    assert (settings.search.k, settings.retrieval.keyword_weight) == (5, 0.5)
    assert settings.retrieval.vector_weight == 0.6  # untouched keys keep their default
    assert settings.index.max_file_bytes == 1000


def test_env_over_toml(toml_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECITE_SEARCH__K", "7")
    monkeypatch.setenv("NOTECITE_RETRIEVAL__VECTOR_WEIGHT", "0.7")
    monkeypatch.setenv("NOTECITE_EMBEDDER__NAME", "ollama")
    settings = load_settings(toml_file)
    assert settings.search.k == 7
    assert settings.retrieval.vector_weight == 0.7
    assert settings.retrieval.keyword_weight == 0.5  # the rest of [retrieval] from TOML
    assert (settings.embedder.name, settings.embedder.batch_size) == ("ollama", 16)


def test_overrides_over_env(toml_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECITE_SEARCH__K", "7")
    settings = load_settings(toml_file, search={"k": 9}, embedder={"name": "openai"})
    assert settings.search.k == 9
    assert settings.retrieval.keyword_weight == 0.5
    assert (settings.embedder.name, settings.embedder.batch_size) == ("openai", 16)


def test_home_override_and_store_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECITE_HOME", str(tmp_path / "env-home"))
    settings = load_settings(home=tmp_path / "flag-home")
    assert settings.db_path == tmp_path / "flag-home" / "notecite.db"
    custom = load_settings(home=tmp_path, store={"path": tmp_path / "x.db"})
    assert custom.db_path == tmp_path / "x.db"


def test_notecite_config_env(toml_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECITE_CONFIG", str(toml_file))
    assert load_settings().search.k == 5


def test_config_toml_in_notecite_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.toml").write_text("[search]\nk = 3\n")
    monkeypatch.setenv("NOTECITE_HOME", str(tmp_path))
    assert load_settings().search.k == 3


def test_config_toml_in_overridden_home(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[search]\nk = 3\n")
    assert load_settings(home=tmp_path).search.k == 3


def test_missing_config_files_are_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "nope.toml")
    monkeypatch.setenv("NOTECITE_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(ConfigError, match="NOTECITE_CONFIG"):
        load_settings()


@pytest.mark.parametrize(
    ("toml", "mentions"),
    [
        ("surprise = 1\n", "surprise"),
        ("[search]\nk = 5\nkk = 6\n", "kk"),
        ("[embedder]\nnam = 'hash'\n", "nam"),
        ("[nonsense]\nx = 1\n", "nonsense"),
    ],
)
def test_unknown_keys_in_toml_are_errors(tmp_path: Path, toml: str, mentions: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError, match=mentions) as excinfo:
        load_settings(path)
    assert str(path) in str(excinfo.value)


@pytest.mark.parametrize(
    "toml",
    ["[search]\nk = 0\n", "[embedder]\nbatch_size = 'many'\n", "[index]\nmax_file_bytes = -1\n"],
)
def test_invalid_values_are_errors(tmp_path: Path, toml: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError, match="invalid settings"):
        load_settings(path)


def test_unknown_override_is_an_error() -> None:
    with pytest.raises(ConfigError, match="bogus"):
        load_settings(bogus=1)


def test_invalid_env_value_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECITE_SEARCH__K", "lots")
    with pytest.raises(ConfigError):
        load_settings()


def test_toml_syntax_error_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[search\nk = ")
    with pytest.raises(ConfigError, match=r"c\.toml"):
        load_settings(path)


def test_secrets_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECITE_EMBEDDER__API_KEY", "sk-secret-123")
    settings = load_settings()
    assert settings.embedder.api_key is not None
    assert settings.embedder.api_key.get_secret_value() == "sk-secret-123"
    assert "sk-secret-123" not in repr(settings)
    assert "sk-secret-123" not in str(masked_settings(settings))
    assert masked_settings(settings)["embedder"]["api_key"] == "**********"
