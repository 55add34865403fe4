"""Building indexes in worker processes: families keep amendments with their bases, and the
result is the serial build's, in the input's order."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.parallel_build import WorkerFailed, build_parallel, families


def _document(doc_id: str, amends: tuple[str, ...] = (), text: str = "1. Terms.") -> Document:
    return Document(doc_id=doc_id, title=doc_id, text=text, sha256="0" * 64, amends=amends)


def test_an_amendment_shares_a_family_with_what_it_amends_and_order_is_kept() -> None:
    documents = [_document("a"), _document("x"), _document("a2", ("a",)),
                 _document("b", ("missing",)), _document("a3", ("a2", "x"))]
    assert [[d.doc_id for d in group] for group in families(documents)] == [
        ["a", "x", "a2", "a3"], ["b"]]


@given(st.lists(st.lists(st.integers(0, 11), max_size=3), min_size=1, max_size=12))
def test_every_document_is_in_one_family_with_all_its_present_parents(
        links: list[list[int]]) -> None:
    documents = [_document(f"d{n}", tuple(f"d{p}" for p in parents if p != n))
                 for n, parents in enumerate(links)]
    groups = families(documents)
    placed = [d.doc_id for group in groups for d in group]
    assert sorted(placed) == sorted(d.doc_id for d in documents)
    family = {d.doc_id: n for n, group in enumerate(groups) for d in group}
    for document in documents:
        for parent in document.amends:
            if parent in family:
                assert family[parent] == family[document.doc_id]
    for group in groups:
        assert group == sorted(group, key=documents.index)


def test_two_processes_build_what_one_builds(corpus_root: Path, tmp_path: Path) -> None:
    documents = load_documents(Selection("transactions"), corpus_dir=corpus_root,
                               cache_dir=tmp_path)
    assert len(families(documents)) > 1
    messages: list[str] = []
    parallel = build_parallel(documents, workers=2, min_chars=0, progress=messages.append)
    assert parallel == build_corpus(documents)
    assert messages[-1] == f"built {len(documents)}/{len(documents)} indexes on 2 processes"


def test_a_small_corpus_is_built_in_this_process(corpus_root: Path, tmp_path: Path) -> None:
    documents = load_documents(Selection("transactions"), corpus_dir=corpus_root,
                               cache_dir=tmp_path)
    messages: list[str] = []
    build_parallel(documents, workers=2, progress=messages.append)
    assert messages and not any("processes" in m for m in messages)


def test_a_script_without_a_main_guard_builds_in_parallel_and_runs_once(
        tmp_path: Path) -> None:
    """Worker processes import the package only: the caller's script is not run again in
    each of them (as multiprocessing's spawn would, which hung a script holding a lock)."""
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent("""
        from pytest_legalbench.ingest.document import Document
        from pytest_legalbench.navindex.parallel_build import build_parallel

        print("script body ran", flush=True)
        documents = [Document(doc_id=f"d{n}", title="d", text=f"{n}. Terms.\\nText.",
                              sha256="0" * 64) for n in range(1, 6)]
        messages = []
        built = build_parallel(documents, workers=2, min_chars=0, progress=messages.append)
        print(len(built), messages[-1])
        """), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["script body ran", "5 built 5/5 indexes on 2 processes"]


def test_a_batch_that_fails_raises_what_the_serial_build_raises() -> None:
    documents = [_document("a"), _document("b", text=b"1. Terms.")]  # type: ignore[arg-type]
    with pytest.raises(TypeError) as serial:
        build_corpus(documents)
    with pytest.raises(TypeError) as parallel:
        build_parallel(documents, workers=2, min_chars=0)
    assert str(parallel.value) == str(serial.value)


class _OnlyHere(str):
    """A text type the worker process cannot import, so it cannot read the batch at all."""


def test_a_worker_that_dies_is_reported_with_its_exit_status_and_stderr(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The class lives in a module only this process has (the tests' own package is importable
    # from the worker's folder too).
    module = types.ModuleType("legalbench_only_in_this_process")
    monkeypatch.setattr(_OnlyHere, "__module__", module.__name__)
    monkeypatch.setattr(module, "_OnlyHere", _OnlyHere, raising=False)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    documents = [_document("a"), _document("b", text=_OnlyHere("1. Terms."))]
    with pytest.raises(WorkerFailed, match=r"exit status 1\): .*ModuleNotFoundError"):
        build_parallel(documents, workers=2, min_chars=0)
