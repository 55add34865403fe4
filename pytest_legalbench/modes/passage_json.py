"""Passages as JSON: what an HTTP retriever answers and a retrieval file holds.

A passage is ``{"doc_id", "text", "start"?, "end"?, "score"?, "meta"?}``, the fields of
``retriever_api.Passage``. The provisions ``legalbench retrieve --json`` prints are read as
passages too: their ``clause``, ``path`` and ``node_id`` go into ``meta``, and a provision
marked ``unlocated`` keeps no span.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_legalbench.modes.retriever_api import Passage

#: A provision's fields that a passage carries in its ``meta``.
PROVISION_META = ("clause", "path", "node_id")


class PassageFormatError(ValueError):
    """JSON that is not a list of passages; the message names where and what is wrong."""


def passages_from_json(items: object, where: str) -> tuple[Passage, ...]:
    """The passages of a JSON list, in its order; PassageFormatError naming ``where``."""
    if not isinstance(items, list):
        raise PassageFormatError(f"{where}: expected a list of passages, got "
                                 f"{_kind(items)}")
    return tuple(passage_from_json(item, f"{where}: passage {number}")
                 for number, item in enumerate(items, 1))


def passage_from_json(item: object, where: str) -> Passage:
    """One passage (or a provision of ``legalbench retrieve``) as a ``Passage``."""
    if not isinstance(item, Mapping):
        raise PassageFormatError(f"{where}: expected an object, got {_kind(item)}")
    meta: dict[str, Any] = {}
    given = item.get("meta")
    if given is not None:
        if not isinstance(given, Mapping):
            raise PassageFormatError(f"{where}: meta must be an object, got {_kind(given)}")
        meta.update(given)
    for name in PROVISION_META:
        if isinstance(item.get(name), str) and item[name]:
            meta.setdefault(name, item[name])
    unlocated = item.get("unlocated") is True
    try:
        return Passage(doc_id=item.get("doc_id"),  # type: ignore[arg-type]
                       text=item.get("text"),  # type: ignore[arg-type]
                       start=None if unlocated else item.get("start"),
                       end=None if unlocated else item.get("end"),
                       score=item.get("score"), meta=meta or None)
    except (TypeError, ValueError) as error:
        raise PassageFormatError(f"{where}: {error}") from None


def _kind(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", type(None): "null",
             bool: "a boolean", int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)
