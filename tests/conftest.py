"""Shared fixtures of the plugin's own tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


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
