"""Building a large corpus's indexes on every core: documents are split into families (an
amendment always with the documents it amends), and batches of families are built by
``build_corpus`` in worker processes (``navindex.build_worker``), one batch at a time each.

The result is the serial build's, in the input's order: a family holds everything a document's
linking reads, so where it was built cannot change what it holds.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.build_worker import read_frame, write_frame
from pytest_legalbench.navindex.node import DocumentIndex

#: Below this many characters the serial build finishes before worker processes would start.
MIN_PARALLEL_CHARS = 2_000_000
#: Batches per worker: enough to even out unequal documents, few enough to keep transfers small.
_BATCHES_PER_WORKER = 4


def available_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)


def families(documents: Sequence[Document]) -> list[list[Document]]:
    """Group ``documents`` so that each amendment shares a group with the documents it amends
    (those present); groups and their members keep the input's order."""
    position = {d.doc_id: n for n, d in enumerate(documents)}
    root = list(range(len(documents)))

    def find(n: int) -> int:
        while root[n] != n:
            root[n] = root[root[n]]
            n = root[n]
        return n

    for n, document in enumerate(documents):
        for parent in document.amends:
            if parent in position:
                a, b = find(n), find(position[parent])
                root[max(a, b)] = min(a, b)
    grouped: dict[int, list[Document]] = {}
    for n, document in enumerate(documents):
        grouped.setdefault(find(n), []).append(document)
    return list(grouped.values())


def _batches(groups: list[list[Document]], count: int) -> list[list[Document]]:
    """Deal the families, largest first, to ``count`` batches of about equal size."""
    batches: list[list[Document]] = [[] for _ in range(count)]
    sizes = [0] * count
    for size, group in sorted(((sum(len(d.text) for d in g), g) for g in groups),
                              key=lambda pair: -pair[0]):
        smallest = sizes.index(min(sizes))
        batches[smallest].extend(group)
        sizes[smallest] += size
    return [batch for batch in batches if batch]


class WorkerFailed(RuntimeError):
    """A build process ended without answering; the message has its exit status and stderr."""


class _Worker:
    """One ``navindex.build_worker`` process, answering one batch at a time."""

    def __init__(self) -> None:
        # The worker imports this package from where this process found it, whatever the
        # caller did to sys.path; its stderr goes to a file, which never fills and blocks it.
        package_root = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pytest_legalbench.navindex.build_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            env={**os.environ, "PYTHONPATH": path})

    def build(self, batch: list[Document]) -> tuple[DocumentIndex, ...]:
        """The indexes of ``batch``, or the exception its build raised."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            write_frame(stdin, batch)
            answer = read_frame(stdout)
        except (OSError, EOFError):
            answer = None
        if not isinstance(answer, tuple) or len(answer) != 2:
            raise WorkerFailed(self._failure())
        status, value = answer
        if status == "error":
            raise value
        return tuple(value)

    def _failure(self) -> str:
        code = self.process.wait()
        self.stderr.seek(0)
        tail = self.stderr.read().decode("utf-8", "replace").strip().splitlines()[-5:]
        return f"an index build process stopped (exit status {code}): " + " | ".join(tail)

    def close(self, *, kill: bool = False) -> None:
        """End the process: by closing its input, or at once with ``kill``."""
        if kill:
            self.process.kill()
        elif self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.stderr):
            if stream is not None:
                stream.close()


def build_parallel(documents: Sequence[Document], *, workers: int | None = None,
                   min_chars: int = MIN_PARALLEL_CHARS,
                   progress: Callable[[str], None] | None = None) -> tuple[DocumentIndex, ...]:
    """Every document's index, as ``build_corpus`` gives it, built by up to ``workers``
    processes (default: the available cores) when the corpus has ``min_chars`` or more."""
    groups = families(documents)
    count = min(workers if workers is not None else available_cores(), len(groups))
    if count < 2 or sum(len(d.text) for d in documents) < min_chars:
        return build_corpus(documents, progress=progress)
    batches = _batches(groups, min(len(groups), count * _BATCHES_PER_WORKER))
    built: dict[str, DocumentIndex] = {}
    started: list[_Worker] = []
    idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()

    def on_a_worker(batch: list[Document]) -> tuple[DocumentIndex, ...]:
        worker = idle.get()  # one thread per worker: there is always one free
        try:
            return worker.build(batch)
        finally:
            idle.put(worker)

    failed = True
    threads = ThreadPoolExecutor(count, thread_name_prefix="legalbench-index-build")
    try:
        started.extend(_Worker() for _ in range(count))
        for worker in started:
            idle.put(worker)
        pending: list[Future[tuple[DocumentIndex, ...]]] = [
            threads.submit(on_a_worker, batch) for batch in batches]
        for future in as_completed(pending):
            built.update((index.doc_id, index) for index in future.result())
            if progress is not None:
                progress(f"built {len(built)}/{len(documents)} indexes on {count} processes")
        failed = False
    finally:
        # After a failure the batches not started are dropped and the processes killed, which
        # ends the reads the threads wait in, so the error surfaces now, not after the build.
        threads.shutdown(wait=False, cancel_futures=failed)
        for worker in started:
            worker.close(kill=failed)
        threads.shutdown(wait=True)
    return tuple(built[d.doc_id] for d in documents)
