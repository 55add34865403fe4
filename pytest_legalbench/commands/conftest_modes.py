"""The modes a conftest registers, for the ``legalbench`` command: the file is loaded as a
module of its own and its ``pytest_legalbench_modes()`` called, as pytest would call the
hook; the file's folder is put on the import path first, as pytest's rootdir conftest
finds its neighbours."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from pytest_legalbench.files.file_names import safe_name
from pytest_legalbench.modes.retriever_failures import one_line

#: The hook a conftest registers modes with.
HOOK = "pytest_legalbench_modes"


def conftest_modes(path: Path) -> tuple[str, object]:
    """``(where, what its hook returned)`` for the conftest at ``path``; ValueError naming the
    file when it cannot be loaded or has no such hook."""
    file = path.expanduser().resolve()
    if not file.is_file():
        raise ValueError(f"--conftest {path}: no such file")
    folder = str(file.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(f"legalbench_conftest_{safe_name(str(file))}",
                                                  file)
    if spec is None or spec.loader is None:
        raise ValueError(f"--conftest {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - the user's file may raise anything
        raise ValueError(f"--conftest {path}: loading it raised {type(error).__name__}: "
                         f"{one_line(str(error), 200)}") from None
    hook = getattr(module, HOOK, None)
    if not callable(hook):
        raise TypeError(f"--conftest {path}: defines no {HOOK}() hook")
    try:
        return str(file), hook()
    except Exception as error:  # noqa: BLE001 - the user's hook may raise anything
        raise ValueError(f"--conftest {path}: {HOOK}() raised {type(error).__name__}: "
                         f"{one_line(str(error), 200)}") from None
