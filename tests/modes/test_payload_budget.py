"""The payload budget is a hard maximum for every mode, whatever the budget and the question."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.modes.base import Mode, ModeSettings
from pytest_legalbench.modes.names import NAVEMBED_STRATEGIES
from pytest_legalbench.modes.navembed import STRATEGIES
from pytest_legalbench.modes.navigate import NavindexMode
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import WordEmbedder, reference_client, two_deal_corpus

CORPUS = two_deal_corpus()
WORDS = ("rent", "monthly", "Harbour Cranes", "Northwind", "minimum volume", "price", "term",
         "amended", "insurance", "delivery", "late payment", "when", "how much", "Lessee")
QUESTIONS = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(
    lambda words: "What about " + " and ".join(words) + "?")


@pytest.fixture(scope="module")
def client() -> Iterator[ModelClient]:
    with reference_client() as started:
        yield started


#: rerank needs cross-encoder weights; it selects through the same budgeted choice.
CHECKED = tuple(name for name in STRATEGIES if name != "rerank")


def _modes(budget: int, client: ModelClient) -> list[Mode]:
    settings = ModeSettings(payload_budget_tokens=budget, k=4)
    embedder = WordEmbedder()
    modes = [STRATEGIES[name](CORPUS, settings, lambda: embedder, client) for name in CHECKED]
    return [*modes, NavindexMode(CORPUS, settings, client)]


def test_every_strategy_but_rerank_is_checked(client: ModelClient) -> None:
    assert set(NAVEMBED_STRATEGIES) - set(CHECKED) == {"rerank"}
    assert [mode.name for mode in _modes(100, client)] == [
        *(f"navembed:{name}" for name in CHECKED), "navindex"]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=900), QUESTIONS)
def test_no_mode_ever_exceeds_the_payload_budget(client: ModelClient, budget: int,
                                                 question: str) -> None:
    texts = {d.doc_id: d.text for d in CORPUS.documents}
    for mode in _modes(budget, client):
        retrieval = mode.retrieve(question, question_id="q")
        assert retrieval.payload_tokens == sum(estimate_tokens(p.text)
                                               for p in retrieval.provisions), mode.name
        assert retrieval.payload_tokens <= budget, (mode.name, retrieval.payload_tokens)
        for provision in retrieval.provisions:
            assert texts[provision.doc_id][provision.start:provision.end] == provision.text


def test_the_same_question_retrieves_the_same_provisions(client: ModelClient) -> None:
    question = "What is the Minimum Volume Northwind must receive, and when?"
    first = [m.retrieve(question, question_id="q").provisions for m in _modes(600, client)]
    second = [m.retrieve(question, question_id="q").provisions for m in _modes(600, client)]
    assert first == second
