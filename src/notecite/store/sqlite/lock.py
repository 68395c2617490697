"""One index run per vault at a time: an advisory lock file per vault beside the index.

A second ``notecite index`` (or ``watch``, or the server's index job) on the same vault of the
same SQLite index waits up to ``index.lock_wait_s`` seconds, then stops with
:class:`~notecite.errors.IndexBusyError` naming the pid that holds the lock. The lock is an
``flock`` on ``<index file>.locks/vault-<id>.lock``: the kernel releases it when its holder
exits, even on ``kill -9``, so a crash never leaves a stale lock behind (a pid file alone
would). Different vaults index in parallel; their writes are serialised by SQLite.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from notecite.errors import IndexBusyError

logger = logging.getLogger(__name__)

_POLL_S = 0.05


def lock_dir(db_path: Path) -> Path:
    """The folder of the lock files of the index at ``db_path``."""
    return db_path.with_name(db_path.name + ".locks")


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return "unknown"
    return text or "unknown"


@contextmanager
def _vault_lock(folder: Path, vault_id: int, vault_name: str, wait_s: float) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"vault-{vault_id}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + wait_s
        waited = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise IndexBusyError(
                        f"another index run is in progress on vault {vault_name!r} "
                        f"(pid {_holder(fd)}); wait for it to finish, or stop it"
                    ) from None
                if not waited:
                    logger.info(
                        "vault %s is being indexed by pid %s; waiting", vault_name, _holder(fd)
                    )
                    waited = True
                time.sleep(_POLL_S)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def holder(folder: Path, vault_id: int) -> str | None:
    """Who holds the index lock of the vault (``pid 1234``, or ``unknown``), or None when
    no run holds it. Looks with a shared lock taken and dropped at once: a run starting at
    that instant finds the lock busy and takes it at its next poll, 50 ms later."""
    try:
        fd = os.open(folder / f"vault-{vault_id}.lock", os.O_RDONLY)
    except FileNotFoundError:  # never indexed here
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder(fd)
            return f"pid {pid}" if pid.isdigit() else "unknown"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextmanager
def index_locks(folder: Path, vaults: Sequence[tuple[int, str]], wait_s: float) -> Iterator[None]:
    """Hold the index lock of every ``(vault id, name)`` in ``vaults`` (taken in id order).

    Raises:
        IndexBusyError: another run held one of them for longer than ``wait_s`` seconds.
    """
    with ExitStack() as stack:
        for vault_id, name in sorted(set(vaults)):
            stack.enter_context(_vault_lock(folder, vault_id, name, wait_s))
        yield
