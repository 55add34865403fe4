"""Shared fixtures of the plugin's own tests."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.replayed_runs import Runs, replayed_runs

# In-process pytester runs drop every module first imported during the run. Modules that keep
# process-wide state (numpy refuses a second load; vcr's patches and exception classes must be
# the same objects in every test) are imported here, once, before any such run; so is the
# anthropic SDK, which every benchmark session's client loads and which takes seconds to import.
import anthropic  # noqa: F401  # isort: skip
import numpy  # noqa: F401  # isort: skip
import scipy.sparse  # type: ignore[import-untyped]  # isort: skip
import scipy.stats  # type: ignore[import-untyped]  # noqa: F401  # isort: skip
import vcr  # isort: skip
import vcr.persisters.filesystem  # noqa: F401  # isort: skip

REPO = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (the whole suite, as CI runs it)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked slow, with the reason, unless --slow asks for them."""
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow end-to-end test: run with --slow (CI and the "
                                   "README's test command do)")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


def pytest_configure(config: pytest.Config) -> None:
    """Let the Python processes the tests start reuse compiled modules."""
    # Where PYTHONDONTWRITEBYTECODE is set (this project's machines set it), every pytest
    # subprocess a test starts would compile and assertion-rewrite each module again, about
    # 2.5 s a process. Their bytecode goes to one folder outside the source tree instead; it
    # is checked against each source file's size and time before use, so it is never stale.
    # Set before xdist starts its workers, which inherit it.
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        os.environ.setdefault("PYTHONPYCACHEPREFIX", str(
            Path(tempfile.gettempdir()) / f"pytest-legalbench-pycache-{os.getuid()}"))


@pytest.fixture(scope="session")
def corpus_root() -> Path:
    """The corpus mirror ($LEGALBENCH_CORPUS_DIR, else ../shared/corpus); fails when absent."""
    configured = os.environ.get("LEGALBENCH_CORPUS_DIR")
    # Resolved now: tests that change directory (pytester) must still find it.
    root = (Path(configured) if configured else REPO.parent / "shared" / "corpus").resolve()
    if not (root / "transactions").is_dir():
        pytest.fail(f"corpus mirror not found at {root}: set LEGALBENCH_CORPUS_DIR", pytrace=False)
    return root


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index and embedding cache for every test that embeds the real corpus.

    It sits beside the per-worker temporary folders, so xdist workers share it too: the
    transactions profile is embedded once per test run, not once per test. Entries are
    written atomically and are the same whoever writes them.
    """
    folder = tmp_path_factory.getbasetemp().parent / "legalbench-shared-cache"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def transactions_corpus(corpus_root: Path, shared_cache: Path) -> Any:
    """The transactions profile's documents and indexes (built once, through the shared cache)."""
    from pytest_legalbench.ingest.selection import Selection, load_documents
    from pytest_legalbench.modes.base import Corpus
    from pytest_legalbench.navindex.corpus import build_indexes

    documents = load_documents(Selection("transactions"), corpus_dir=corpus_root,
                               cache_dir=shared_cache)
    return Corpus(documents, build_indexes(documents, cache_dir=shared_cache), shared_cache)


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
         shared_cache: Path) -> Runs:
    """Two real benchmark runs replayed offline, with their report folders
    (``replayed_runs``): made once per test session, shared by the xdist workers."""
    # Under xdist, beside the workers' temporary folders (the session's own folder), so both
    # workers share one pair of runs; a serial session has its own folder.
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / \
        "legalbench-replayed"
    try:
        return replayed_runs(shared, corpus_root, shared_cache)
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
