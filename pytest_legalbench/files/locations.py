"""Where things live: the cache, the corpus mirror and the packaged data folders."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from pytest_legalbench.defaults import CACHE_ENV, CORPUS_ENV


def cache_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the cache root: explicit value, then $LEGALBENCH_CACHE_DIR, then the XDG cache."""
    # Precedence: an explicit setting wins over the environment, which wins over the default.
    chosen = explicit or os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-legalbench"


def corpus_dir(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """Return the corpus mirror folder from an explicit value or $LEGALBENCH_CORPUS_DIR."""
    chosen = explicit or os.environ.get(CORPUS_ENV)
    return Path(chosen).expanduser() if chosen else None


def manifests_dir() -> Path:
    """Return the packaged folder of profile manifests (the repository's ``corpus/``)."""
    return Path(str(resources.files("pytest_legalbench.manifests")))


def question_sets_dir() -> Path:
    """Return the folder of the packaged question sets, one subfolder per profile."""
    return Path(str(resources.files("pytest_legalbench.question_sets")))


def prompts_dir() -> Path:
    """Return the packaged folder of prompt templates (the repository's ``prompts/``)."""
    return Path(str(resources.files("pytest_legalbench.prompt_templates")))
