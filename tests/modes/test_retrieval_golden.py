"""The node ids each mode retrieves for fixed questions, compared with a committed golden file.

Recorded runs replay by matching request bodies, so retrieval must not drift silently. After
an intended change, regenerate with ``LEGALBENCH_UPDATE_GOLDEN=1 pytest tests/modes/test_retrieval_golden.py``
and review the diff of ``tests/modes/golden/retrieval_transactions.json``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.base import ModeSettings, ModeUnavailable
from pytest_legalbench.modes.names import mode_names
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.run.query import query_session

GOLDEN = Path(__file__).parent / "golden"
#: The committed vector record: the units' vectors are read from it as a clone's replay reads
#: them (``test_vector_record`` checks it against the model).
VECTOR_RECORD = Path(__file__).resolve().parents[2] / "cassettes" / "vectors"
#: Two whole transaction sets: every mode runs on them in CI time (embedding the full profile's
#: subtrees on two CPU cores takes minutes; the perf script measures that outside CI).
GOLDEN_SETS = ("netgear", "glufox")


def _questions() -> list[tuple[str, str]]:
    # Questions about all four sets: those about the others must still retrieve stably.
    lines = (GOLDEN / "retrieval_questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [(r["id"], r["question"]) for r in map(json.loads, lines) if r]


@pytest.mark.corpus
def test_retrieved_node_ids_match_the_golden_file(corpus_root: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    documents = tuple(d for d in load_documents(Selection("transactions"),
                                                corpus_dir=corpus_root, cache_dir=tmp_path)
                      if d.transaction_set in GOLDEN_SETS)
    assert len(documents) == 7
    indexes = build_indexes(documents, cache_dir=tmp_path)
    observed: dict[str, dict[str, list[str]]] = {}
    for mode in mode_names():
        try:
            with query_session(documents, indexes, mode=mode, backend="reference",
                               base_url=None, settings=ModeSettings(),
                               cache_dir=tmp_path, vector_record=VECTOR_RECORD) as session:
                observed[mode] = {qid: [p.node_id for p in session.mode.retrieve(q).provisions]
                                  for qid, q in _questions()}
        except ModeUnavailable as unavailable:
            observed[mode] = {"unavailable": [unavailable.reason]}
    path = GOLDEN / "retrieval_transactions.json"
    if os.environ.get("LEGALBENCH_UPDATE_GOLDEN") == "1":
        path.write_text(json.dumps(observed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    golden = json.loads(path.read_text(encoding="utf-8"))
    assert observed == golden
