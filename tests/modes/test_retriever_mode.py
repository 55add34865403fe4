"""A user's retriever as a mode: what it is given, how its passages become provisions
(located, labelled, cut to the budget), and each way it can fail one item."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from pytest_legalbench import (
    Passage,
    RetrieverCorpus,
    RetrieverQuestion,
)
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.registry import ModeRegistry, builtin_modes
from pytest_legalbench.modes.retriever_failures import RetrieverFailed
from pytest_legalbench.modes.retriever_mode import RetrieverMode, retriever_corpus
from pytest_legalbench.modes.traits import RETRIEVED
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import LEASE, LEASE_AMENDMENT, LEASE_TEXT, lease_corpus

RENT = "2.1 Amount. The Lessee shall pay Monthly Rent of $42,500 for the Equipment"


class Fixed:
    """Returns what it was given, and remembers what it was asked."""

    def __init__(self, passages: object) -> None:
        self.passages = passages
        self.asked: list[RetrieverQuestion] = []

    def retrieve(self, question: RetrieverQuestion) -> Any:
        self.asked.append(question)
        return self.passages


def _mode(retriever: Any, timeout_s: float | None = 5.0, **settings: Any) -> RetrieverMode:
    return RetrieverMode("mine", retriever, lease_corpus(), ModeSettings(**settings),
                         timeout_s=timeout_s)


def _failure(retriever: Any, **kwargs: Any) -> str:
    with pytest.raises(RetrieverFailed) as failed:
        _mode(retriever, **kwargs).retrieve("What is the rent?", question_id="q1")
    message = str(failed.value)
    assert "\n" not in message and message.startswith("mode 'mine', question 'q1': ")
    return message.removeprefix("mode 'mine', question 'q1': ")


def test_the_factory_gets_the_documents_their_trees_and_the_settings() -> None:
    corpus = lease_corpus()
    given = retriever_corpus(corpus, ModeSettings(payload_budget_tokens=900, k=7), 12.0)
    assert given.doc_ids == (LEASE, LEASE_AMENDMENT) and len(given) == 2
    lease = given.document(LEASE)
    assert lease.text == LEASE_TEXT and lease.title and lease.index is not None
    assert lease.index.doc_id == LEASE and any(n.clause_reference == "2.1"
                                               for n in lease.index.nodes)
    assert given.settings.payload_budget_tokens == 900 and given.settings.k == 7
    assert given.settings.timeout_s == 12.0 and given.tokens("abcde") == 2
    assert [d.doc_id for d in given] == list(given.doc_ids)
    with pytest.raises(KeyError, match="no document 'nope' in the corpus"):
        given.document("nope")
    # Built once per corpus and settings.
    assert retriever_corpus(corpus, ModeSettings(payload_budget_tokens=900, k=7), 12.0) is given


def test_the_retriever_sees_the_question_id_and_text_only() -> None:
    retriever = Fixed([])
    retrieval = _mode(retriever).retrieve("What is the rent?", question_id="q7")
    assert retriever.asked == [RetrieverQuestion("q7", "What is the rent?")]
    assert str(retriever.asked[0]) == "What is the rent?"
    assert {f.name for f in dataclasses.fields(RetrieverQuestion)} == {"id", "text"}
    assert retrieval.provisions == () and retrieval.payload_tokens == 0
    assert retrieval.mode == "mine" and retrieval.cut is None


def test_passages_are_located_labelled_and_kept_in_rank_order() -> None:
    start = LEASE_TEXT.index(RENT)
    curly = "\u201cEquipment\u201d means the two gantry cranes described in Schedule 1."
    retrieval = _mode(Fixed([
        Passage(LEASE, "  The Lessee shall pay Monthly Rent\n of $42,500 "),
        Passage(LEASE, LEASE_TEXT[start:start + len(RENT)], start=start,
                end=start + len(RENT), score=0.5),
        Passage(LEASE, curly, meta={"clause": "Definitions"}),
    ])).retrieve("What is the rent?", question_id="q1")
    first, second, third = retrieval.provisions
    found = LEASE_TEXT.index("The Lessee shall pay Monthly Rent of $42,500")
    assert (first.start, first.end) == (found, found + len("The Lessee shall pay Monthly Rent "
                                                           "of $42,500"))
    # Shown as the document has it, labelled with the smallest provision holding it.
    assert first.text == LEASE_TEXT[first.start:first.end]
    assert first.clause == "2.1" and "RENT" in first.path
    assert first.node_id == f"{LEASE}@{first.start}-{first.end}" and not first.unlocated
    assert (second.start, second.end) == (start, start + len(RENT)) and second.clause == "2.1"
    # Quote marks folded; the passage's own citation wins.
    assert LEASE_TEXT[third.start:third.end] == ('"Equipment" means the two gantry cranes '
                                                 "described in Schedule 1.")
    assert third.clause == "Definitions"
    assert retrieval.payload_tokens == sum(estimate_tokens(p.text) for p in retrieval.provisions)
    assert retrieval.notes == ()


def test_an_unlocated_passage_is_shown_and_counted_but_has_no_span() -> None:
    retrieval = _mode(Fixed([Passage(LEASE, "Rent is forty thousand a month."),
                             Passage(LEASE, RENT)])).retrieve("q?", question_id="q1")
    lost, kept = retrieval.provisions
    assert lost.unlocated and (lost.start, lost.end) == (0, 0)
    assert lost.text == "Rent is forty thousand a month." and lost.node_id == f"{LEASE}@unlocated-1"
    assert not kept.unlocated
    assert retrieval.payload_tokens == estimate_tokens(lost.text) + estimate_tokens(kept.text)
    assert retrieval.notes == (("1 of 2 passages could not be located in their documents "
                               "(shown to the model, outside evidence recall)"),)


def test_a_retrieval_over_the_budget_is_cut_in_rank_order() -> None:
    paragraphs = [p.strip() for p in LEASE_TEXT.split("\n\n") if p.strip()]
    passages = [Passage(LEASE, p) for p in paragraphs]
    sizes = [estimate_tokens(p) for p in paragraphs]
    budget = sum(sizes[:3]) + sizes[3] - 1  # the fourth does not fit
    retrieval = _mode(Fixed(passages), payload_budget_tokens=budget).retrieve(
        "q?", question_id="q1")
    assert [p.text for p in retrieval.provisions] == paragraphs[:3]
    assert retrieval.payload_tokens <= budget
    cut = retrieval.cut
    assert cut is not None
    assert (cut.kept, cut.cut, cut.budget_tokens) == (3, len(paragraphs) - 3, budget)
    assert cut.cut_tokens == sum(sizes[3:])
    assert retrieval.notes[-1] == (f"cut {len(paragraphs) - 3} of {len(paragraphs)} passages "
                                   f"({sum(sizes[3:]):,} tokens) at the payload budget of "
                                   f"{budget:,} tokens")


class Raising:
    def retrieve(self, question: RetrieverQuestion) -> Sequence[Passage]:
        raise ValueError("the index\nis not loaded")


class Hanging:
    def __init__(self) -> None:
        self.release = threading.Event()

    def retrieve(self, question: RetrieverQuestion) -> Sequence[Passage]:
        self.release.wait(30)
        return []


def test_a_retriever_that_raises_fails_the_item_in_one_line() -> None:
    assert _failure(Raising()) == "retrieve() raised ValueError: the index is not loaded"


def test_a_retriever_that_hangs_past_the_timeout_fails_the_item() -> None:
    hanging = Hanging()
    try:
        assert _failure(hanging, timeout_s=0.2) == (
            "retrieve() took longer than the timeout of 0.2 s (--legalbench-timeout)")
    finally:
        hanging.release.set()


@pytest.mark.parametrize(("returned", "problem"), [
    (None, "retrieve() returned NoneType, not a sequence of Passage"),
    ({"doc_id": LEASE, "text": RENT}, "retrieve() returned dict, not a sequence of Passage"),
    ("a string", "retrieve() returned str, not a sequence of Passage"),
    ([{"doc_id": LEASE, "text": RENT}], "passage 1 is a dict, not a pytest_legalbench.Passage"),
    ([Passage(LEASE, RENT), Passage("nope", "x")],
     "passage 2 names doc_id 'nope', which is not in the corpus"),
    ([Passage(LEASE, "  \n")], f"passage 1 (of '{LEASE}') has empty text"),
    ([Passage(LEASE, "x", start=10, end=10**6)],
     f"passage 1's span 10-1000000 lies outside '{LEASE}' (0-{len(LEASE_TEXT)})"),
    ([Passage(LEASE, "not what the span holds", start=0, end=15)],
     f"passage 1's text is not the text of its span 0-15 of '{LEASE}'"),
])
def test_a_malformed_return_fails_the_item_saying_what_is_wrong(returned: object,
                                                                 problem: str) -> None:
    assert _failure(Fixed(returned)) == problem


def test_a_passage_checks_its_own_fields() -> None:
    with pytest.raises(TypeError, match="doc_id must be a non-empty string"):
        Passage("", "x")
    with pytest.raises(ValueError, match="given together"):
        Passage(LEASE, "x", start=3)
    with pytest.raises(ValueError, match="empty or negative"):
        Passage(LEASE, "x", start=5, end=5)
    with pytest.raises(TypeError, match="start must be an integer"):
        Passage(LEASE, "x", start=True, end=4)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="score must be a number"):
        Passage(LEASE, "x", score="high")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="meta must be a mapping"):
        Passage(LEASE, "x", meta=["clause"])  # type: ignore[arg-type]
    assert Passage(LEASE, "x", start=0, end=1).located and not Passage(LEASE, "x").located


def test_a_factory_is_built_through_the_registry_and_its_failures_name_the_mode() -> None:
    corpus, settings = lease_corpus(), ModeSettings()

    def paragraphs(given: RetrieverCorpus) -> Fixed:
        return Fixed([Passage(LEASE, RENT)])

    def broken(given: RetrieverCorpus) -> Fixed:
        raise RuntimeError("no model file")

    registry = ModeRegistry.registered([
        ("pytest-legalbench", builtin_modes()),
        ("conftest.py", {"paragraphs": paragraphs, "broken": broken, "lazy": lambda c: 42})],
        timeout_s=3.0)
    assert registry.traits("paragraphs") == RETRIEVED
    mode = registry.build("paragraphs", corpus, settings, None)
    assert isinstance(mode, RetrieverMode) and mode.timeout_s == 3.0
    assert mode.retrieve("q?", question_id="q1").provisions[0].clause == "2.1"
    with pytest.raises(RetrieverFailed, match=r"^mode 'broken', the question: its factory "
                                              r"raised RuntimeError: no model file$"):
        registry.build("broken", corpus, settings, None)
    with pytest.raises(RetrieverFailed, match="returned a int, which has no retrieve"):
        registry.build("lazy", corpus, settings, None)
