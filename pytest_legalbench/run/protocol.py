"""What every product's items share: the record and runner protocols, and the envelope a
record travels in from the process that ran it to the one that summarises the session.

A product is the QA benchmark (a mode against inject, judged) or GANDR (claim-audited answers
and their baselines). Each item's record travels as the ``legalbench_record`` user property:
``{"product": <name>, "record": <the record's plain builtins>}``, so JUnit XML carries it and
xdist moves it untouched. The record is its JSON layout (``files.record_json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.run.items import Case

#: The ``user_properties`` name every item's record travels under.
RECORD_PROPERTY = "legalbench_record"
#: The ``user_properties`` name an item's id travels under beside its record (the controller
#: of a worker on another host journals the item by it).
ITEM_PROPERTY = "legalbench_item"
#: The ``user_properties`` name an item that failed with an error carries its error under
#: (``results.item_errors.ItemError``'s fields: item, mode, question_id, error).
ERROR_PROPERTY = "legalbench_error"


class Record(Protocol):
    """One item's result, whichever product ran it."""

    @property
    def question_id(self) -> str:
        """The question the item answered."""
        ...

    def problems(self) -> tuple[str, ...]:
        """What the item failed to produce (an empty answer, a missing score); () when whole."""
        ...


class ItemRunner(Protocol):
    """Runs the items of one product."""

    product: str
    """The product's name in record envelopes: ``qa`` or ``gandr``."""

    def handles(self, mode: str) -> bool:
        """Whether items of ``mode`` are this product's."""
        ...

    def run(self, case: Case, group: str = ...) -> Record:
        """Run one item and return its record."""
        ...


def envelope(product: str, record: Record) -> dict[str, object]:
    """The user property value a record travels as."""
    return {"product": product, "record": to_builtins(record)}


def unwrap(value: object) -> tuple[str, Mapping[str, Any]] | None:
    """(product, record dict) of an envelope; None for anything that is not one."""
    if not isinstance(value, Mapping):
        return None
    product, record = value.get("product"), value.get("record")
    if not isinstance(product, str) or not isinstance(record, Mapping):
        return None
    return product, record
