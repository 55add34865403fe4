"""Two small instruments written for the retrieval-mode tests, and a reference-backend client."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.llm.client import ModelClient, resolve_backend
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.modes.base import Corpus
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.reference_backend import ReferenceBackend
from pytest_legalbench.vectors.embedding import Embedder, WeightedTexts
from pytest_legalbench.vectors.lexical_index import tokenise

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


SUPPLY_TEXT = """SUPPLY AGREEMENT

This Supply Agreement (this "Agreement") is made by Northwind Foods Inc. ("Buyer") and Ostara Mills GmbH ("Supplier").

1. DEFINITIONS

"Delivery Point" means the Buyer's warehouse in Rotterdam.

"Minimum Volume" means 400 tonnes of flour in each calendar quarter.

"Price" means the amount per tonne set out in Schedule A.

2. SUPPLY

2.1 Volumes. The Supplier shall deliver at least the Minimum Volume to the Delivery Point.

2.2 Shortfall. If the Supplier delivers less than the Minimum Volume, Section 5.1 applies.

3. PRICE AND PAYMENT

3.1 Invoices. The Buyer shall pay each invoice at the Price within thirty (30) days.

3.2 Currency. All payments are made in euros.

4. TERM

This Agreement runs until December 31, 2027.

5. REMEDIES

5.1 Shortfall Credit. For each tonne short of the Minimum Volume the Supplier credits the Buyer ten percent (10%) of the Price.

SCHEDULE A

Price: EUR 310 per tonne.
"""

SUPPLY_AMENDMENT_TEXT = """AMENDMENT NO. 1 TO SUPPLY AGREEMENT

This Amendment No. 1 amends the Supply Agreement (the "Agreement") between Northwind Foods Inc. and Ostara Mills GmbH.

1. Section 4 of the Agreement is amended so that the Agreement runs until December 31, 2029.

2. This Amendment takes effect on March 1, 2026 and prevails over the Agreement where they conflict.
"""

SUPPLY = "supply"
SUPPLY_AMENDMENT = "supply-amendment-1"


def two_deal_documents() -> tuple[Document, ...]:
    """Two transactions: the lease (with its amendment) and a supply agreement (with its)."""
    return (*lease_documents(),
            document(SUPPLY, SUPPLY_TEXT, "Supply Agreement",
                     parties=("Northwind Foods Inc.", "Ostara Mills GmbH")),
            document(SUPPLY_AMENDMENT, SUPPLY_AMENDMENT_TEXT,
                     "Amendment No. 1 to Supply Agreement", role="amendment",
                     amends=(SUPPLY,)))


def two_deal_corpus() -> Corpus:
    """Both transactions with their indexes."""
    documents = two_deal_documents()
    return Corpus(documents, build_corpus(documents), None)


_DIMENSION = 4096
#: Texts longer than this count as needing windows in the fake embedder.
_FAKE_WINDOW_CHARS = 1000


class WordEmbedder(Embedder):
    """Unit bag-of-words vectors over hashed words: deterministic and instant."""

    def __init__(self) -> None:
        super().__init__(Path("/nonexistent-fake-model"))
        self.embedded: list[str] = []

    @property
    def digest(self) -> str:
        return "fa4e0001"

    def max_seq_length(self) -> int:
        return 256

    def embed_weighted(self, texts: Sequence[str]) -> WeightedTexts:
        self.embedded.extend(texts)
        rows = np.zeros((len(texts), _DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in tokenise(text):
                rows[row, zlib.crc32(word.encode()) % _DIMENSION] += 1.0
            norm = float(np.linalg.norm(rows[row]))
            rows[row] /= norm or 1.0
        return WeightedTexts(rows, tuple(2 if len(t) > _FAKE_WINDOW_CHARS else 1 for t in texts),
                             tuple(max(1, len(tokenise(t))) for t in texts))


#: An office lease and its first amendment, for navembed's strategies.
OFFICE_LEASE_TEXT = """OFFICE LEASE

This Office Lease (this "Lease") is made by Harbor Properties LLC ("Landlord") and Bluefin Analytics Inc. ("Tenant").

1. DEFINITIONS

"Premises" means Suite 400 of the building described in Schedule 1.

"Rent" means the monthly amount stated in Section 3.1.

2. TERM

The term of this Lease begins on March 1, 2023 and ends on February 28, 2028.

3. RENT

3.1 Base Rent. Tenant shall pay Base Rent of $12,500 per month, in advance, on the first day of each month.

3.2 Late Payment. Any Rent not paid within five days after its due date bears interest at 1.5% per month.

4. MAINTENANCE

Landlord shall keep the roof, structure and elevators in good repair. Tenant shall maintain the interior of the Premises.

5. DEFAULT

If Tenant fails to pay Rent when due under Section 3.1, Landlord may terminate this Lease on thirty days written notice.

6. GOVERNING LAW

This Lease is governed by the laws of the State of Oregon.

SCHEDULE 1

Suite 400, 1200 Harbor Way, Portland.
"""

OFFICE_AMENDMENT_TEXT = """FIRST AMENDMENT TO OFFICE LEASE

This First Amendment (this "Amendment") amends the Office Lease (the "Lease") between Landlord and Tenant.

1. Section 3.1 of the Lease is amended so that Base Rent is $13,000 per month from March 1, 2025.

2. Section 4 of the Lease is amended so that Tenant also maintains the elevators.
"""
