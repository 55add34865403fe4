"""Where things live by default: the cache root and the packaged data folders. The folders a
user configures are resolved with the other settings (``plugin.settings``)."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path


def default_cache_dir() -> Path:
    """The cache root when none is configured: ``$XDG_CACHE_HOME/pytest-legalbench``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-legalbench"


def manifests_dir() -> Path:
    """Return the packaged folder of profile manifests (the repository's ``corpus/``)."""
    return Path(str(resources.files("pytest_legalbench.manifests")))


def question_sets_dir() -> Path:
    """Return the folder of the packaged question sets, one subfolder per profile."""
    return Path(str(resources.files("pytest_legalbench.question_sets")))


def prompts_dir() -> Path:
    """Return the packaged folder of prompt templates (the repository's ``prompts/``)."""
    return Path(str(resources.files("pytest_legalbench.prompt_templates")))
