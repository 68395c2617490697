"""Index runs in background threads, one per vault at a time, with their progress."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from notecite.api.schemas import IndexJobOut, IndexReportOut
from notecite.ingest.progress import IndexProgress, ProgressCallback
from notecite.schemas.ask import ErrorInfo
from notecite.types import IndexReport

logger = logging.getLogger(__name__)

IndexRunner = Callable[[str, ProgressCallback, threading.Event], list[IndexReport]]
"""Indexes the named vault, reporting progress, until the event is set (the Engine's
``index``)."""


class IndexJobs:
    """Starts index runs and answers how far each one got."""

    def __init__(self, run: IndexRunner) -> None:
        self._run = run
        self._lock = threading.Lock()
        self._jobs: dict[str, IndexJobOut] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._stop = threading.Event()

    def start(self, vault: str) -> tuple[IndexJobOut, bool]:
        """Start indexing ``vault`` unless it is running already; (status, started)."""
        with self._lock:
            current = self._jobs.get(vault)
            if current is not None and current.state == "running":
                return current.model_copy(deep=True), False
            job = IndexJobOut(vault=vault, state="running", started_at=datetime.now(UTC))
            self._jobs[vault] = job
            thread = threading.Thread(
                target=self._work, args=(job,), name=f"notecite-index-{vault}", daemon=True
            )
            self._threads[vault] = thread
            thread.start()
            return job.model_copy(deep=True), True

    def status(self, vault: str) -> IndexJobOut:
        """The latest run of ``vault`` (state ``idle`` when none ran since the server started)."""
        with self._lock:
            job = self._jobs.get(vault)
            return job.model_copy(deep=True) if job else IndexJobOut(vault=vault)

    def running(self, vault: str) -> bool:
        """Is ``vault`` being indexed now?"""
        return self.status(vault).state == "running"

    def stop(self) -> None:
        """Ask every run to stop after the note or batch at hand (at shutdown)."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for every run to finish (at shutdown)."""
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(timeout)

    def _work(self, job: IndexJobOut) -> None:
        def progress(report: IndexProgress) -> None:
            with self._lock:
                job.phase = report.phase
                job.done, job.total, job.current = report.done, report.total, report.current
                job.notes_written = report.notes_written
                job.chunks_embedded = report.chunks_embedded
                job.notes_per_s = round(report.notes_per_s, 2)
                job.chunks_per_s = round(report.chunks_per_s, 2)
                job.eta_s = round(report.eta_s, 1) if report.eta_s is not None else None

        try:
            reports = self._run(job.vault, progress, self._stop)
        except Exception as exc:
            logger.warning("index run of %s failed: %s", job.vault, exc)
            with self._lock:
                job.state = "failed"
                job.error = ErrorInfo(type=type(exc).__name__, message=str(exc))
                job.finished_at = datetime.now(UTC)
            return
        with self._lock:
            job.state = "done"
            job.current = None
            job.eta_s = None
            job.report = IndexReportOut.of(reports[0]) if reports else None
            job.finished_at = datetime.now(UTC)
