"""Budgeted selection: value per token, a hard maximum, no repeated text, the same every time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.modes.budget import choose, rank_value
from pytest_legalbench.modes.closure import KINDS, Closure
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import LEASE, SUPPLY, two_deal_corpus

CORPUS = two_deal_corpus()
BY_ID = {n.node_id: n for i in CORPUS.indexes for n in i.nodes}
CLOSURE = Closure(CORPUS.indexes, kinds=KINDS)
PROVISIONS = sorted(n for n, node in BY_ID.items()
                    if node.kind not in ("document", "toc", "toc_entry"))


def test_rank_values_halve_over_four_ranks() -> None:
    assert [round(rank_value(r), 4) for r in (1, 2, 5, 9)] == [1.0, 0.8, 0.5, 0.3333]


def test_links_come_with_their_hit_and_everything_fits() -> None:
    hit = BY_ID[f"{LEASE}:2.1"]
    chosen = choose([(hit, 1.0)], 1000, BY_ID, closure=CLOSURE)
    ids = [n.node_id for n in chosen.nodes]
    assert ids[0] == hit.node_id and "lease-amendment-1:1" in ids
    assert chosen.spent == sum(estimate_tokens(n.text) for n in chosen.nodes) <= 1000
    assert chosen.counts["hit"] == 1 and chosen.counts["amendment"] >= 1
    assert "1 hit" in chosen.note(1000)


def test_a_hit_too_large_for_what_is_left_brings_its_parts_instead() -> None:
    section = BY_ID[f"{SUPPLY}:2"]
    room = estimate_tokens(section.text) - 1
    chosen = choose([(section, 1.0)], room, BY_ID)
    ids = [n.node_id for n in chosen.nodes]
    assert section.node_id not in ids and ids[0] == f"{SUPPLY}:2-intro"
    assert set(ids) <= {f"{SUPPLY}:2-intro", f"{SUPPLY}:2.1", f"{SUPPLY}:2.2"}
    assert chosen.over_budget >= 1 and chosen.spent <= room


def test_relevance_orders_the_parts_of_a_hit_that_does_not_fit() -> None:
    section = BY_ID[f"{SUPPLY}:2"]
    room = sum(estimate_tokens(BY_ID[f"{SUPPLY}:{part}"].text) for part in ("2-intro", "2.2"))
    chosen = choose([(section, 1.0)], room, BY_ID,
                    relevance=lambda node: 1.0 if node.node_id.endswith("2.2") else 0.0)
    # The lead-in first (it says what the parts are about), then the best match; 2.1 is
    # the one left out.
    assert [n.node_id for n in chosen.nodes] == [f"{SUPPLY}:2-intro", f"{SUPPLY}:2.2"]


def test_a_small_provision_can_outweigh_a_large_one_of_more_value() -> None:
    large, small = BY_ID[f"{LEASE}:1"], BY_ID[f"{SUPPLY}:3.2"]
    chosen = choose([(large, 1.0), (small, 0.9)], 10_000, BY_ID)
    assert [n.node_id for n in chosen.nodes] == [small.node_id, large.node_id]


def test_a_provision_holding_a_taken_one_can_bring_its_other_parts() -> None:
    clause, section = BY_ID[f"{SUPPLY}:2.1"], BY_ID[f"{SUPPLY}:2"]
    held = choose([(clause, 1.0), (section, 0.9)], 10_000, BY_ID)
    assert [n.node_id for n in held.nodes] == [clause.node_id]
    opened = choose([(clause, 1.0), (section, 0.9)], 10_000, BY_ID, open_held=True)
    assert [n.node_id for n in opened.nodes] == [clause.node_id, f"{SUPPLY}:2-intro",
                                                 f"{SUPPLY}:2.2"]
    assert opened.reasons == ("hit", "hit", "hit")


def test_matches_rank_with_hits_under_their_own_name() -> None:
    chosen = choose([(BY_ID[f"{SUPPLY}:2.1"], 1.0)], 10_000, BY_ID,
                    matched=[(BY_ID[f"{LEASE}:2.2"], 0.5)], limit=1)
    assert chosen.reasons == ("hit", "match") and chosen.counts == {"hit": 1, "match": 1}


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(PROVISIONS), min_size=1, max_size=12, unique=True),
       st.integers(min_value=0, max_value=400), st.booleans(), st.booleans(),
       st.lists(st.sampled_from(PROVISIONS), max_size=8), st.booleans())
def test_any_selection_stays_within_the_budget_and_never_repeats_text(
        hits: list[str], budget: int, linked: bool, limited: bool, found: list[str],
        opened: bool) -> None:
    ranked = [(BY_ID[h], rank_value(r)) for r, h in enumerate(hits, start=1)]
    matched = [(BY_ID[f], rank_value(len(hits) + r)) for r, f in enumerate(found, start=1)]
    chosen = choose(ranked, budget, BY_ID, closure=CLOSURE if linked else None,
                    limit=2 if limited else None, matched=matched, open_held=opened)
    assert chosen.spent == sum(estimate_tokens(n.text) for n in chosen.nodes) <= budget
    spans = [(n.doc_id, n.start, n.end) for n in chosen.nodes]
    assert not any(a[0] == b[0] and a[1] < b[2] and b[1] < a[2]
                   for i, a in enumerate(spans) for b in spans[i + 1:])
    assert len({n.node_id for n in chosen.nodes}) == len(chosen.nodes)
    if limited:
        assert chosen.reasons.count("hit") <= 2
    again = choose(ranked, budget, BY_ID, closure=CLOSURE if linked else None,
                   limit=2 if limited else None, matched=matched, open_held=opened)
    assert again == chosen
