"""One index run per vault at a time on PostgreSQL: session advisory locks.

The lock of a vault is ``pg_try_advisory_lock(NOTE, vault_id)`` (the two-key form, apart
from the store's single-key locks), held on a connection of its own for the whole run. The
server releases it when that session ends, also when the process holding it is killed, so a
crash leaves no stale lock. The holder names itself in ``application_name``
(``notecite index pid N``), which is how a waiting run can say who holds the lock.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import psycopg

from notecite.errors import IndexBusyError, StoreError
from notecite.store.postgres.connection import Connection, describe_url, reason

logger = logging.getLogger(__name__)

_KEY = 0x6E6F7465  # "note": the first key of every index lock
_POLL_S = 0.05


def _holder(conn: psycopg.Connection[tuple[object, ...]], vault_id: int) -> str:
    row = conn.execute(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.classid = %s::oid AND l.objid = %s::oid "
        "AND l.objsubid = 2 AND l.granted",
        (_KEY, vault_id),
    ).fetchone()
    name = str(row[0]) if row and row[0] else ""
    return name.removeprefix("notecite index ") or "unknown"


def holders(conn: Connection, vault_ids: Sequence[int]) -> dict[int, str]:
    """The vaults among ``vault_ids`` whose index lock some session holds now, each with
    its holder (``pid 1234``, read from the holder's ``application_name``, or ``unknown``);
    a look at ``pg_locks`` that takes no lock."""
    if not vault_ids:
        return {}
    rows = conn.execute(
        "SELECT l.objid::bigint, a.application_name FROM pg_locks l "
        "LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.classid = %s::oid AND l.objsubid = 2 "
        "AND l.granted AND l.objid::bigint = ANY(%s)",
        (_KEY, list(vault_ids)),
    ).fetchall()
    found = {}
    for vault_id, name in rows:
        who = str(name or "").removeprefix("notecite index ")
        found[int(str(vault_id))] = who if who.startswith("pid ") else "unknown"
    return found


@contextmanager
def advisory_index_locks(
    url: str, vaults: Sequence[tuple[int, str]], wait_s: float
) -> Iterator[None]:
    """Hold the index lock of every ``(vault id, name)`` (taken in id order).

    Raises:
        IndexBusyError: another run held one of them for longer than ``wait_s`` seconds.
        StoreError: the server cannot be reached.
    """
    try:
        conn = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=10,
            application_name=f"notecite index pid {os.getpid()}",
        )
    except psycopg.Error as exc:
        raise StoreError(
            f"cannot open the PostgreSQL index at {describe_url(url)}: {reason(exc)}"
        ) from exc
    with conn:
        for vault_id, name in sorted(set(vaults)):
            deadline = time.monotonic() + wait_s
            while True:
                row = conn.execute(
                    "SELECT pg_try_advisory_lock(%s, %s)", (_KEY, vault_id)
                ).fetchone()
                if row and row[0]:
                    break
                if time.monotonic() >= deadline:
                    raise IndexBusyError(
                        f"another index run is in progress on vault {name!r} "
                        f"({_holder(conn, vault_id)}); wait for it to finish, or stop it"
                    )
                time.sleep(_POLL_S)
        yield
    # closing the session released every lock it held
