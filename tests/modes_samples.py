"""Two small instruments written for the retrieval-mode tests, and a reference-backend client."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Iterator
from typing import Any

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.llm.client import ModelClient, resolve_backend
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.modes.base import Corpus
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.reference_backend import ReferenceBackend

LEASE_TEXT = """EQUIPMENT LEASE

This Equipment Lease (this "Lease") is entered into by Harbour Cranes plc ("Lessor") and Tidewater Logistics LLC ("Lessee").

CONTENTS

1. Definitions
2. Rent
3. Term

1. DEFINITIONS

"Equipment" means the two gantry cranes described in Schedule 1.

"Monthly Rent" means the amount set out in Section 2.1.

"Commencement Date" means the date on which the Equipment is delivered to the Lessee.

2. RENT

2.1 Amount. The Lessee shall pay Monthly Rent of $42,500 for the Equipment, subject to Section 2.2.

2.2 Late Payment. Overdue Monthly Rent bears interest at 1.5% per month until paid.

3. TERM

The Lease runs for sixty (60) months from the Commencement Date.

4. INSURANCE

The Lessee shall insure the Equipment against loss by fire and flood for its replacement value.

5. LIMITATION OF LIABILITY

The liability of the Lessor under this Lease shall not exceed the Monthly Rent paid in the preceding twelve months.

6. GOVERNING LAW

This Lease is governed by the laws of the State of Delaware.

SCHEDULE 1

Two gantry cranes, serial numbers GC-101 and GC-102.
"""

LEASE_AMENDMENT_TEXT = """FIRST AMENDMENT TO EQUIPMENT LEASE

This First Amendment (this "Amendment") amends the Equipment Lease (the "Lease") between Lessor and Lessee.

1. Section 2.1 of the Lease is amended so that the Monthly Rent is $39,000 from January 1, 2025.

2. Section 3 of the Lease is amended so that the Lease runs for seventy-two (72) months.
"""

LEASE = "lease"
LEASE_AMENDMENT = "lease-amendment-1"


def document(doc_id: str, text: str, title: str, **fields: Any) -> Document:
    """A document as ingestion would read it, checksummed from its text."""
    return Document(doc_id=doc_id, title=title, text=text,
                    sha256=hashlib.sha256(text.encode()).hexdigest(), **fields)


def lease_documents() -> tuple[Document, ...]:
    """The lease and its amendment."""
    return (document(LEASE, LEASE_TEXT, "Equipment Lease",
                     parties=("Harbour Cranes plc", "Tidewater Logistics LLC")),
            document(LEASE_AMENDMENT, LEASE_AMENDMENT_TEXT, "First Amendment to Equipment Lease",
                     role="amendment", amends=(LEASE,)))


def lease_corpus() -> Corpus:
    """The lease and its amendment with their indexes."""
    documents = lease_documents()
    return Corpus(documents, build_corpus(documents), None)


@contextlib.contextmanager
def reference_client() -> Iterator[ModelClient]:
    """A client of a freshly started reference backend, with an empty ledger."""
    with ReferenceBackend() as backend:
        config = dataclasses.replace(resolve_backend("reference", {}),
                                     base_url=backend.base_url, api_key="reference")
        with ModelClient(config, Ledger()) as client:
            yield client
