"""Records read back from their envelopes (a resumed run's journal), as each product's type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.run.protocol import Record, unwrap


def record_of(envelope: Mapping[str, Any]) -> tuple[str, Record]:
    """The product and record an envelope holds; ValueError for anything else."""
    found = unwrap(envelope)
    if found is None:
        raise ValueError(f"not a record envelope: {envelope!r:.80}")
    product, data = found
    if product == "qa":
        return product, ItemRecord.from_dict(data)
    if product == "gandr":
        return product, GandrRecord.from_dict(data)
    raise ValueError(f"records of unknown product {product!r}")
