"""The retrieval protocol's records and the one place mode defaults live."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.defaults import MAX_SCAN_NODES
from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.modes.base import (
    Corpus,
    ModeSettings,
    ModeUnavailable,
    Provision,
    Retrieval,
    payload_tokens,
)
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import lease_corpus, lease_documents


def test_a_provision_is_a_nodes_whole_subtree() -> None:
    index = lease_corpus().indexes[0]
    section = index.by_id()["lease:2"]
    provision = Provision.from_node(section)
    assert (provision.start, provision.end, provision.text) == (
        section.start, section.end, section.text)
    assert lease_documents()[0].text[provision.start:provision.end] == provision.text
    assert "2.2 Late Payment" in provision.text  # the child's text is part of it
    # The clause is the reference a citation uses ("2"), not the heading as printed ("2.").
    assert to_builtins(provision) == {"doc_id": "lease", "node_id": "lease:2",
                                   "clause": section.full_reference, "start": section.start,
                                   "end": section.end, "text": section.text, "path": ""}


def test_an_attachment_is_cited_by_its_printed_heading() -> None:
    exhibit = Node(node_id="d:exhibit-a", doc_id="d", kind="schedule", clause_reference="EXHIBIT A",
                   title="Form of Note", start=0, end=9, text="EXHIBIT A", full_reference="exhibit:a")
    assert Provision.from_node(exhibit).clause == "EXHIBIT A"


@given(st.lists(st.text(max_size=40), max_size=6))
def test_payload_tokens_are_summed_per_provision(texts: list[str]) -> None:
    provisions = tuple(Provision("d", f"d:{n}", "", 0, len(t), t) for n, t in enumerate(texts))
    assert payload_tokens(provisions) == sum(estimate_tokens(t) for t in texts)
    # Per provision, not over the joined text: four 1-character texts are four tokens.
    assert payload_tokens(tuple(Provision("d", "d:x", "", 0, 1, "a") for _ in range(4))) == 4


def test_a_retrieval_serialises_to_json() -> None:
    call = Call(stage="navindex.scan", model="m", usage=Usage(input_tokens=3), latency_s=0.1,
                backend="reference", question_id="q1")
    retrieval = Retrieval(mode="navindex", provisions=(Provision("d", "d:1", "1", 0, 4, "text"),),
                          payload_tokens=1, scan_tokens=3, calls=(call,),
                          dropped=(("invalid_ids", 2), ("toc_ids", 0)), notes=("n",))
    data = json.loads(json.dumps(to_builtins(retrieval)))
    assert data["provisions"][0]["node_id"] == "d:1"
    assert data["dropped"] == {"invalid_ids": 2, "toc_ids": 0}
    assert data["calls"][0]["stage"] == "navindex.scan"


def test_mode_unavailable_carries_its_reason() -> None:
    error = ModeUnavailable("inject", "does not fit")
    assert error.reason == "does not fit" and "inject" in str(error)


@pytest.mark.parametrize("change", [{"k": 0}, {"node_cap": MAX_SCAN_NODES + 1},
                                    {"payload_budget_tokens": -5}, {"scan_model": ""},
                                    {"max_scan_documents": True}])
def test_settings_refuse_values_no_mode_can_use(change: dict[str, object]) -> None:
    name = next(iter(change))
    with pytest.raises(ValueError, match=name):
        ModeSettings(**change)  # type: ignore[arg-type]


def test_the_default_cap_is_the_prompts_cap() -> None:
    assert ModeSettings().node_cap == MAX_SCAN_NODES == 10


def test_a_corpus_refuses_repeated_documents_and_stray_indexes() -> None:
    documents = lease_documents()
    with pytest.raises(ValueError, match="distinct"):
        Corpus(documents + documents[:1], (), None)
    indexes = lease_corpus().indexes
    with pytest.raises(ValueError, match="lease-amendment-1"):
        Corpus(documents[:1], indexes, None)
