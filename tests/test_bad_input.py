"""Bad files are recorded with their reason, the run goes on, and a fixed file recovers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from notecite import Engine, Settings
from notecite.testing import hash_settings, write_files
from notecite.types import IndexReport
from tests.helpers import MakeVault

NOBODY = 65534
GOOD = {
    "good.md": "---\ntitle: Good\n---\n# Good\nfine text\n",
    "folder/also-good.md": "# Also good\nmore fine text\n",
}
BAD: dict[str, tuple[bytes, str]] = {
    # rel_path: (content, expected reason)
    "bad-yaml.md": (b"---\ntitle: [unclosed\n---\nbody\n", "invalid YAML frontmatter"),
    "list-front.md": (b"---\n- a\n- b\n---\nbody\n", "frontmatter is a list"),
    "unclosed-front.md": (b"---\ntitle: x\nbody\n", "never closed"),
    "binary.md": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01", "binary file"),
    "latin1.md": ("caf\u00e9 cr\u00e8me".encode("latin-1"), "not valid UTF-8"),
    "empty.md": (b"", "empty file"),
    "blank.txt": (b"  \n\n\t\n", "empty file"),
    "huge.md": (b"word " * 1000, "file too large"),
    "broken.pdf": (b"%PDF-1.4\nnot really a pdf", "unreadable PDF"),
}
MAX_BYTES = 1000
FIXED = "# Fixed\nthis file is fine now\n"


def _failures(engine: Engine) -> dict[str, str]:
    (vault,) = engine.status().vaults
    return {f.rel_path: f.reason for f in vault.failed}


def assert_report(report: IndexReport, **expected: int) -> None:
    actual = {key: getattr(report, key) for key in expected}
    assert actual == expected, report.summary()


@pytest.fixture
def bad_settings(tmp_path: Path) -> Settings:
    return hash_settings(tmp_path / "home", index={"max_file_bytes": MAX_BYTES})


@pytest.fixture
def bad_vault(tmp_path: Path) -> Path:
    vault = write_files(tmp_path / "vault", {**GOOD, **{p: c for p, (c, _) in BAD.items()}})
    outside = write_files(tmp_path / "outside", {"secret.md": "# Secret\nnot in the vault\n"})
    (vault / "loop-a.md").symlink_to("loop-b.md")
    (vault / "loop-b.md").symlink_to("loop-a.md")
    (vault / "folder" / "up").symlink_to("..", target_is_directory=True)
    (vault / "escape.md").symlink_to(outside / "secret.md")
    (vault / "broken.md").symlink_to("does-not-exist.md")
    return vault


SYMLINKS = {
    "loop-a.md": "symlink loop",
    "loop-b.md": "symlink loop",
    "folder/up": "symlink loop",
    "escape.md": "symlink leads outside the vault",
    "broken.md": "broken symlink",
}


def test_every_bad_file_is_recorded_and_the_run_goes_on(
    bad_settings: Settings, bad_vault: Path
) -> None:
    with Engine(bad_settings) as engine:
        engine.add_vault("v", bad_vault)
        (report,) = engine.index()
        failures = _failures(engine)
        status = engine.status().vaults[0]
        hits = {r.rel_path for r in engine.search("fine text")}
        leaked = [r for r in engine.search("secret vault", k=50) if "not in the vault" in r.text]
    expected = {**{p: reason for p, (_, reason) in BAD.items()}, **SYMLINKS}
    assert set(failures) == set(expected)
    for rel_path, reason in expected.items():
        assert reason in failures[rel_path], (rel_path, failures[rel_path])
    assert (report.added, report.failed) == (len(GOOD), len(expected))
    assert {f.rel_path for f in report.failures} == set(expected)
    assert status.notes == len(GOOD)
    assert hits == set(GOOD)
    assert leaked == []


def test_failures_persist_until_fixed_then_recover(bad_settings: Settings, bad_vault: Path) -> None:
    with Engine(bad_settings) as engine:
        engine.add_vault("v", bad_vault)
        (first,) = engine.index()
        (second,) = engine.index()
        assert second.failed == first.failed
        assert second.unchanged == len(GOOD)
        assert second.added == second.updated == 0

        gone = {"broken.pdf", "folder/up"}  # these are deleted, every other one is fixed
        for rel_path in [*BAD, *SYMLINKS]:
            (bad_vault / rel_path).unlink()
            if rel_path not in gone:
                (bad_vault / rel_path).write_text(FIXED)
        (fixed,) = engine.index()
        assert _failures(engine) == {}
        status = engine.status().vaults[0]
    recovered = len(BAD) + len(SYMLINKS) - len(gone)
    assert_report(fixed, added=recovered, updated=0, failed=0, removed=0, unchanged=len(GOOD))
    assert status.notes == len(GOOD) + recovered


def test_a_good_note_that_breaks_is_replaced_by_its_failure(
    settings: Settings, make_vault: MakeVault
) -> None:
    vault = make_vault({"n.md": "# N\nsearchable words\n"})
    with Engine(settings) as engine:
        engine.add_vault("v", vault)
        engine.index()
        (vault / "n.md").write_bytes(b"---\ntitle: [oops\n---\nsearchable words\n")
        (report,) = engine.index()
        assert report.failed == 1
        assert "invalid YAML" in _failures(engine)["n.md"]
        assert engine.search("searchable") == []
        assert engine.status().vaults[0].notes == 0


def test_deleted_failed_file_leaves_no_trace(settings: Settings, make_vault: MakeVault) -> None:
    vault = make_vault({"ok.md": "# ok\nfine\n", "bad.md": b""})
    with Engine(settings) as engine:
        engine.add_vault("v", vault)
        engine.index()
        (vault / "bad.md").unlink()
        (report,) = engine.index()
        assert _failures(engine) == {}
    assert (report.removed, report.failed, report.unchanged) == (0, 0, 1)


# -- unreadable files -----------------------------------------------------------------------


@pytest.fixture
def world_dir() -> Iterator[Path]:
    """A folder under /tmp that an unprivileged user may write (pytest's tmp_path is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="notecite-perm-", dir="/tmp"))
    path.chmod(0o777)
    try:
        yield path
    finally:
        for folder, subfolders, _ in os.walk(path):  # top-down: open each folder first
            for name in subfolders:
                Path(folder, name).chmod(0o777)
        shutil.rmtree(path)


# Runs the real CLI as nobody. The interpreter may live where nobody cannot read it (pyenv
# under /root), so the child first warms up as root (one index run of a scratch vault imports
# every module the real run needs), then drops root for good and runs the CLI.
_AS_NOBODY = """
import os, sys
from notecite.cli.main import cli
probe, warm, *args = sys.argv[1:]
os.makedirs(warm + "/v")
with open(warm + "/v/w.md", "w") as fh:
    fh.write("# Warm\\nup\\n")
cli.main(["--home", warm + "/h", "--embedder", "hash", "index", warm + "/v"], standalone_mode=False)
os.setgroups([])
os.setgid({uid})
os.setuid({uid})
assert not os.access(probe, os.R_OK), "still privileged"
cli.main(args, prog_name="notecite")
"""


def _index_unprivileged(home: Path, vault: Path, probe: Path) -> None:
    """Run `notecite index` as nobody, for whom mode 000 really means unreadable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOTECITE_")}
    # nobody cannot look into root's (or pytest's) folders for a config.toml
    env["HOME"] = str(home.parent)
    env["XDG_DATA_HOME"] = str(home.parent / "xdg-data")
    args = ["--home", str(home), "--embedder", "hash", "index", str(vault), "--vault", "v"]
    warm = home.parent / "warm-up"
    done = subprocess.run(
        [sys.executable, "-c", _AS_NOBODY.format(uid=NOBODY), str(probe), str(warm), *args],
        env=env,
        cwd=home.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_unreadable_file_and_folder(world_dir: Path) -> None:
    home = world_dir / "home"
    vault = write_files(
        world_dir / "vault",
        {
            "ok.md": "# ok\nreadable\n",
            "locked.md": "# locked\nsecret\n",
            "private/p.md": "# p\nx\n",
        },
    )
    for path in (vault, *vault.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (vault / "locked.md").chmod(0o000)
    (vault / "private").chmod(0o000)

    if os.geteuid() == 0:  # root reads mode 000 files anyway; index as nobody instead
        _index_unprivileged(home, vault, probe=vault / "locked.md")
    else:
        with Engine(hash_settings(home)) as engine:
            engine.add_vault("v", vault)
            engine.index()
    with Engine(hash_settings(home)) as engine:
        failures = _failures(engine)
        assert failures == {
            "locked.md": "permission denied",
            "private": "folder not readable: permission denied",
        }
        assert engine.status().vaults[0].notes == 1

        (vault / "locked.md").chmod(0o644)
        (vault / "private").chmod(0o755)
        (report,) = engine.index()
        assert _failures(engine) == {}
        assert engine.status().vaults[0].notes == 3
    assert_report(report, added=2, unchanged=1)


def test_status_json_lists_failures_via_cli(tmp_path: Path) -> None:
    vault = write_files(tmp_path / "vault", {"ok.md": "# ok\nx\n", "empty.md": ""})
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOTECITE_")}
    base = [sys.executable, "-m", "notecite", "--home", str(home), "--embedder", "hash"]
    subprocess.run([*base, "index", str(vault)], env=env, check=True, capture_output=True)
    out = subprocess.run(
        [*base, "status", "--json"], env=env, check=True, capture_output=True, text=True
    )
    (entry,) = json.loads(out.stdout)["vaults"]
    assert entry["failed"] == [{"rel_path": "empty.md", "reason": "empty file"}]
