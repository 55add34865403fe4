"""navindex S2: the deterministic fetch of selected nodes, references and definitions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.modes.fetch import definition_usage, fetch
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens


def _node(local: str, text: str, *, parent: str | None = None, children: tuple[str, ...] = (),
          refs: tuple[str, ...] = (), uses: tuple[str, ...] = ()) -> Node:
    return Node(node_id=f"d:{local}", doc_id="d", kind="section", clause_reference=local,
                title=local, start=0, end=len(text), text=text,
                parent=f"d:{parent}" if parent else None,
                children=tuple(f"d:{c}" for c in children),
                cross_references=tuple(f"d:{r}" for r in refs),
                uses_definitions=tuple(f"d:{u}" for u in uses))


NODES = {n.node_id: n for n in (
    _node("root", "whole", children=("art", "defs", "far")),
    _node("art", "article text", parent="root", children=("a", "b")),
    _node("a", "clause a cites far", parent="art", refs=("far", "ghost")),
    _node("b", "clause b uses a term", parent="art", uses=("term",)),
    _node("defs", "definitions", parent="root", children=("term",)),
    _node("term", '"Term" means a word.', parent="defs"),
    _node("far", "x" * 400, parent="root", refs=("a",)),
)}


def _ids(result_ids: tuple[str, ...]) -> list[str]:
    return [i.removeprefix("d:") for i in result_ids]


def test_selected_nodes_come_first_then_references_then_definitions() -> None:
    result = fetch([NODES["d:a"], NODES["d:b"]], NODES, budget=10_000)
    assert _ids(tuple(p.node_id for p in result.provisions)) == ["a", "b", "far", "term"]
    assert (result.selected, result.references, result.definitions) == (2, 1, 1)
    assert result.unknown == 1  # "ghost" is not in the corpus


def test_definitions_come_rarest_first_up_to_the_per_node_cap() -> None:
    terms = {f"d:t{n}": _node(f"t{n}", f'"T{n}" means thing {n}.') for n in range(4)}
    # t0 is used everywhere, t3 only by the selected clause: usage 4, 3, 2, 1.
    users = {f"d:u{n}": _node(f"u{n}", "user", uses=tuple(f"t{m}" for m in range(4 - n)))
             for n in range(1, 4)}
    clause = _node("c", "the clause", uses=("t0", "t1", "t2", "t3"))
    nodes = {**terms, **users, clause.node_id: clause}
    assert definition_usage(nodes.values())["d:t0"] == 4
    result = fetch([clause], nodes, budget=10_000, definitions_per_node=2)
    assert _ids(tuple(p.node_id for p in result.provisions)) == ["c", "t3", "t2"]
    assert (result.definitions, result.over_cap) == (2, 2)
    assert "2 widely used definitions left out" in " ".join(result.notes(10_000))


def test_a_parent_follows_what_its_children_cite() -> None:
    result = fetch([NODES["d:art"]], NODES, budget=10_000)
    assert _ids(tuple(p.node_id for p in result.provisions)) == ["art", "far", "term"]


def test_additions_stay_within_the_budget() -> None:
    budget = estimate_tokens("clause a cites far") + estimate_tokens("clause b uses a term") + 10
    result = fetch([NODES["d:a"], NODES["d:b"]], NODES, budget=budget)
    # "far" (100 tokens) does not fit; the short definition still does.
    assert _ids(tuple(p.node_id for p in result.provisions)) == ["a", "b", "term"]
    assert result.over_budget == 1
    assert "left out over the" in " ".join(result.notes(budget))


def test_selected_nodes_are_kept_even_over_the_budget() -> None:
    result = fetch([NODES["d:far"]], NODES, budget=1)
    assert _ids(tuple(p.node_id for p in result.provisions)) == ["far"]
    assert result.over_budget == 1  # its reference to "a" did not fit


def test_nothing_is_fetched_twice_or_inside_a_fetched_subtree() -> None:
    # "a" is inside "art"; "far" cites "a", which "art" already holds.
    result = fetch([NODES["d:art"], NODES["d:a"], NODES["d:art"], NODES["d:far"]], NODES,
                   budget=10_000)
    assert _ids(tuple(p.node_id for p in result.provisions)) == ["art", "far", "term"]
    assert result.nested == 2


def test_a_reference_to_an_ancestor_of_a_fetched_node_is_not_added() -> None:
    looping = dict(NODES)
    looping["d:b"] = _node("b", "clause b", parent="art", refs=("root", "art"))
    result = fetch([looping["d:b"]], looping, budget=10_000)
    assert _ids(tuple(p.node_id for p in result.provisions)) == ["b"]


_IDS = sorted(NODES)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_IDS), max_size=6), st.integers(min_value=1, max_value=300))
def test_no_fetched_text_overlaps_another(selection: list[str], budget: int) -> None:
    selected = [NODES[i] for i in selection]
    result = fetch(selected, NODES, budget)
    fetched = [p.node_id for p in result.provisions]
    assert len(fetched) == len(set(fetched))

    def ancestors(node_id: str) -> set[str]:
        found, parent = set(), NODES[node_id].parent
        while parent:
            found.add(parent)
            parent = NODES[parent].parent
        return found

    for node_id in fetched:
        assert not ancestors(node_id) & set(fetched)
    kept_selected = [i for i in fetched if i in set(selection)]
    added_tokens = sum(estimate_tokens(p.text) for p in result.provisions)
    selected_tokens = sum(estimate_tokens(NODES[i].text) for i in kept_selected)
    # Additions never take the payload over the budget (the selection alone may exceed it).
    assert added_tokens == selected_tokens or added_tokens <= budget
    # Every selected node is fetched unless another selected node already holds it.
    for node_id in set(selection):
        assert node_id in fetched or ancestors(node_id) & set(selection)
