"""The hook through which modes are registered: by this plugin (the built-in modes), by any
conftest and by any installed pytest plugin."""

from __future__ import annotations

import pytest


@pytest.hookspec
def pytest_legalbench_modes() -> dict[str, object]:  # type: ignore[empty-body]
    """Return the modes to register, ``{name: factory}``, each benchmarked with
    ``--mode=name``.

    A factory is a class or function called once per session (per xdist worker) with a
    ``pytest_legalbench.RetrieverCorpus``; it returns an object whose
    ``retrieve(question)`` returns a sequence of ``pytest_legalbench.Passage``, best first.
    Called when a benchmark session starts; every implementation's modes are merged, and a
    name registered twice is a usage error naming both.
    """
