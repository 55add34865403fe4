"""Records read back from their envelopes (a resumed run's journal, the session's end), as
each product's type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_legalbench.files.record_json import from_builtins
from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.run.protocol import Record, unwrap

#: Each product's record type, by the name its envelopes carry.
RECORD_TYPES: Mapping[str, type[ItemRecord | GandrRecord]] = {
    "qa": ItemRecord, "gandr": GandrRecord}


def record_of(envelope: Mapping[str, Any]) -> tuple[str, Record]:
    """The product and record an envelope holds; ValueError for anything else."""
    found = unwrap(envelope)
    if found is None:
        raise ValueError(f"not a record envelope: {envelope!r:.80}")
    product, data = found
    if product not in RECORD_TYPES:
        raise ValueError(f"records of unknown product {product!r}")
    record: Record = from_builtins(RECORD_TYPES[product], data, what=f"a {product} record")
    return product, record
