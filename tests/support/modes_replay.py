"""Run fixed retrievals over the `transactions` profile and print them as JSON (one process).

Used by the determinism test: two processes with different hash seeds must print the same.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.base import Corpus, ModeSettings
from pytest_legalbench.modes.registry import build_mode
from pytest_legalbench.navindex.corpus import build_indexes
from tests.support.modes_samples import reference_client

QUESTIONS = (
    "What territory does the NETGEAR distributor agreement cover after the amendments?",
    'What does "Applicable Margin" mean?',
    "Which state's laws govern the wireless content license?",
)


def main(corpus_dir: str, cache_dir: str) -> None:
    """Print inject's and navindex's retrievals of every question, one JSON line each."""
    documents = load_documents(Selection("transactions"), corpus_dir=Path(corpus_dir),
                               cache_dir=Path(cache_dir))
    corpus = Corpus(documents, build_indexes(documents, cache_dir=None), None)
    with reference_client() as client:
        modes = [build_mode(name, corpus, ModeSettings(), client)
                 for name in ("inject", "navindex")]
        for number, question in enumerate(QUESTIONS):
            for mode in modes:
                found = mode.retrieve(question, question_id=f"q{number}")
                record = {"mode": found.mode, "question": question,
                          "provisions": [[p.node_id, p.start, p.end] for p in found.provisions],
                          "payload_tokens": found.payload_tokens,
                          "scan_tokens": found.scan_tokens, "dropped": dict(found.dropped)}
                print(json.dumps(record, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
