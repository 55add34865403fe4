"""Retrieval modes on the real corpus: navindex on `transactions`, two stages on `cuad`, replay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.llm.scan_prompt import index_block, index_entry
from pytest_legalbench.modes.base import Corpus, ModeSettings
from pytest_legalbench.modes.navigate import NavindexMode
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import reference_client

pytestmark = pytest.mark.corpus
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def transactions(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    documents = load_documents(Selection("transactions"), corpus_dir=corpus_root,
                               cache_dir=tmp_path_factory.mktemp("cache"))
    return Corpus(documents, build_indexes(documents, cache_dir=None), None)


def test_navindex_fetches_the_original_and_both_amendments(transactions: Corpus) -> None:
    question = "What territory does the NETGEAR distributor agreement cover after the amendments?"
    with reference_client() as client:
        mode = NavindexMode(transactions, ModeSettings(), client)
        retrieval = mode.retrieve(question, question_id="q1")
    assert not mode.two_stage  # the whole profile's index fits the default scan budget
    ids = {p.node_id for p in retrieval.provisions}
    assert {"netgear-01_distributor_agreement_1996:2", "netgear-02_amendment_1996-10-01:1",
            "netgear-03_amendment_no2_1998-07-15:1"} <= ids
    texts = {d.doc_id: d.text for d in transactions.documents}
    for provision in retrieval.provisions:
        assert texts[provision.doc_id][provision.start:provision.end] == provision.text
    assert retrieval.payload_tokens <= ModeSettings().payload_budget_tokens
    # The scan read the whole cached index; the payload is a small part of the corpus.
    assert retrieval.scan_tokens > 50_000
    assert retrieval.payload_tokens * 20 < sum(estimate_tokens(t) for t in texts.values())


def test_cuad_is_scanned_in_two_stages(corpus_root: Path, tmp_path: Path) -> None:
    documents = load_documents(Selection("cuad"), corpus_dir=corpus_root, cache_dir=tmp_path)
    # A handful of documents with a scan budget far below their index keeps the test fast
    # while taking the same path the whole profile takes at the default budget.
    subset = tuple(sorted(documents, key=lambda d: d.doc_id)[:8])
    corpus = Corpus(subset, build_indexes(subset, cache_dir=None), None)
    target = subset[4]
    question = f"When may either party terminate the {target.title}?"
    settings = ModeSettings(scan_budget_tokens=5_000)
    with reference_client() as client:
        mode = NavindexMode(corpus, settings, client)
        retrieval = mode.retrieve(question, question_id="q1")
        calls = client.ledger.calls
    assert mode.two_stage
    assert [c.stage for c in calls] == ["navindex.scan_documents", "navindex.scan"]
    scanned = retrieval.notes[0].rpartition("scanned ")[2].split(", ")
    assert target.doc_id in scanned and 1 <= len(scanned) <= settings.max_scan_documents
    assert {p.doc_id for p in retrieval.provisions} <= set(scanned)
    whole = estimate_tokens(index_block(index_entry(i) for i in corpus.indexes))
    assert calls[1].usage.footprint < whole
    assert retrieval.scan_tokens == calls[0].usage.footprint + calls[1].usage.footprint


def test_two_processes_retrieve_the_same(corpus_root: Path, tmp_path: Path) -> None:
    runs = []
    for seed in ("1", "2"):
        paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
        environment = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=os.pathsep.join(paths))
        runs.append(subprocess.Popen(
            [sys.executable, "-m", "tests.support.modes_replay", str(corpus_root),
             str(tmp_path / seed)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=environment))
    outputs = []
    for run in runs:
        stdout, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, stderr
        outputs.append(stdout)
    assert outputs[0] == outputs[1]
    records = [json.loads(line) for line in outputs[0].splitlines()]
    assert len(records) == 6 and all(r["provisions"] for r in records)
