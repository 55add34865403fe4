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
