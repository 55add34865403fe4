"""navindex S2: the fetch of the scan's choice with its closure, under a hard budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.modes import fetch
from pytest_legalbench.modes.fetch import Fetcher
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    SUPPLY,
    SUPPLY_AMENDMENT,
    two_deal_corpus,
)

CORPUS = two_deal_corpus()
FETCHER = Fetcher(CORPUS.indexes, definitions_per_node=3)
NODES = FETCHER.by_id


def _ids(selected: list[str], question: str = "What is owed?", budget: int = 10_000) -> list[str]:
    fetched = FETCHER.fetch([NODES[i] for i in selected], question, budget)
    return [p.node_id for p in fetched.provisions]


def test_the_scan_s_choice_comes_first_with_what_it_needs() -> None:
    ids = _ids([f"{LEASE}:2.1"], "How much is the Monthly Rent?")
    assert ids[0] == f"{LEASE}:2.1"
    assert {f"{LEASE_AMENDMENT}:1", f"{LEASE}:def-monthly-rent", f"{LEASE}:2.2"} <= set(ids)


def test_an_amendment_chosen_brings_the_base_and_the_rest_of_it() -> None:
    ids = _ids([f"{SUPPLY_AMENDMENT}:1"], "Until when does the supply run?")
    assert ids[0] == f"{SUPPLY_AMENDMENT}:1"
    assert {f"{SUPPLY}:4", f"{SUPPLY_AMENDMENT}:2"} <= set(ids)


def test_a_choice_too_large_for_the_budget_brings_its_best_parts() -> None:
    section = NODES[f"{SUPPLY}:2"]
    budget = estimate_tokens(section.text) - 1
    ids = _ids([section.node_id], "What happens on a shortfall?", budget)
    assert section.node_id not in ids and f"{SUPPLY}:2.2" in ids
    fetched = FETCHER.fetch([section], "What happens on a shortfall?", budget)
    assert fetched.chosen.spent <= budget and "did not fit" in fetched.notes(budget)[0]


def test_nothing_is_fetched_twice_or_inside_a_fetched_provision() -> None:
    ids = _ids([f"{SUPPLY}:2", f"{SUPPLY}:2.1", f"{SUPPLY}:2"])
    assert ids.count(f"{SUPPLY}:2") == 1 and f"{SUPPLY}:2.1" not in ids


_IDS = sorted(n for n, node in NODES.items() if node.kind not in ("document", "toc"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_IDS), max_size=6), st.integers(min_value=1, max_value=300))
def test_no_fetch_exceeds_its_budget_or_overlaps_itself(selection: list[str],
                                                        budget: int) -> None:
    fetched = FETCHER.fetch([NODES[i] for i in selection], "rent price term", budget)
    assert sum(estimate_tokens(p.text) for p in fetched.provisions) <= budget
    spans = [(p.doc_id, p.start, p.end) for p in fetched.provisions]
    assert not any(a[0] == b[0] and a[1] < b[2] and b[1] < a[2]
                   for i, a in enumerate(spans) for b in spans[i + 1:])


def _matches(selected: str, question: str) -> dict[str, str]:
    fetched = FETCHER.fetch([NODES[selected]], question, 10_000)
    assert fetched.chosen.reasons[0] == "hit"
    return {n.node_id: n.doc_id for n, why in zip(fetched.chosen.nodes, fetched.chosen.reasons)
            if why == "match"}


def test_word_matches_of_the_chosen_documents_follow_the_scan_s_choice() -> None:
    question = "What happens on a shortfall, and what rent is owed?"
    # 2.2 is the provision about a shortfall, which the scan did not name.
    from_supply = _matches(f"{SUPPLY}:3.2", question)
    assert f"{SUPPLY}:2.2" in from_supply
    # The lease matches the question's words too ...
    assert f"{LEASE}:def-monthly-rent" in _matches(f"{LEASE}:3", question)
    # ... but the scan chose from the supply agreement alone, so nothing of the lease comes.
    assert set(from_supply.values()) == {SUPPLY}
    fetched = FETCHER.fetch([NODES[f"{SUPPLY}:3.2"]], question, 10_000)
    assert f"{len(from_supply)} match" in fetched.notes(10_000)[0]


def test_without_word_matches_only_the_scan_s_choice_and_its_closure_come(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fetch, "WORD_HITS", 0)
    fetched = FETCHER.fetch([NODES[f"{SUPPLY}:3.2"]], "What happens on a shortfall?", 10_000)
    assert "match" not in fetched.chosen.reasons
    assert f"{SUPPLY}:2.2" not in [n.node_id for n in fetched.chosen.nodes]
