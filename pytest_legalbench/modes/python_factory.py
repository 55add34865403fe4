"""A retriever's factory named by where it is on the import path: ``package.module:factory``
(``factory`` may be dotted: ``module:Class.create``)."""

from __future__ import annotations

import importlib

from pytest_legalbench.modes.retriever_failures import one_line


def load_factory(reference: str) -> object:
    """The callable ``module:attribute`` names; ValueError (TypeError when it is not
    callable) saying what is wrong otherwise."""
    module_name, colon, attribute = reference.strip().partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"{reference!r} does not name a factory: write "
                         f"py:package.module:factory")
    try:
        found: object = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - the user's module may raise anything
        raise ValueError(f"cannot import {module_name!r} ({type(error).__name__}: "
                         f"{one_line(str(error), 160)}); is it installed, or on pytest's "
                         f"pythonpath?") from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ValueError(f"{module_name!r} has no {attribute!r}")
        found = getattr(found, part)
    if not callable(found):
        raise TypeError(f"{reference!r} is a {type(found).__name__}, not a callable factory")
    return found
