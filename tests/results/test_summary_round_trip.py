"""The typed ``Summary`` read back from the form results.json holds: ``files.record_json``
gives a summary that writes the same JSON and prints the same lines, for made-up summaries of
every shape and for the summaries of two real replayed runs."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.defaults import JUDGES
from pytest_legalbench.files.record_json import RecordError, from_builtins, to_builtins
from pytest_legalbench.judging.pairing import Tally
from pytest_legalbench.llm.ledger import USAGE_FIELDS
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.crossover import (
    conversation_verdict,
    navigate_verdict,
    navindex_verdict,
)
from pytest_legalbench.results.item_errors import ItemError
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.results_file import read_run
from pytest_legalbench.results.summary import (
    Costs,
    Footprint,
    KeyFactRates,
    ModeSummary,
    Summary,
)
from pytest_legalbench.results.summary_lines import summary_lines
from pytest_legalbench.results.verdict_split import KeyFactCells, VerdictSplit
from tests.support.replayed_runs import Runs

PRICES = load_price_card().prices_for("claude-sonnet-4-6")
_COUNT = st.integers(min_value=0, max_value=40)
_TOKENS = st.one_of(st.integers(min_value=0, max_value=10**7),
                    st.floats(min_value=0, max_value=1e7, allow_nan=False))


@st.composite
def _rates(draw: st.DrawFn) -> ReportedRate:
    n = draw(_COUNT)
    return ReportedRate.of(draw(st.integers(min_value=0, max_value=n)), n)


@st.composite
def _tallies(draw: st.DrawFn) -> Tally:
    inject, mode, tie, split, unscored = (draw(_COUNT) for _ in range(5))
    return Tally(inject + mode + tie + split + unscored, inject, mode, tie, split, unscored)


_CELLS = st.builds(KeyFactCells, _COUNT, _COUNT, _COUNT, _COUNT)


@st.composite
def _splits(draw: st.DrawFn) -> VerdictSplit:
    tie, inject, mode = draw(_CELLS), draw(_CELLS), draw(_CELLS)
    return VerdictSplit(tie.items + inject.items + mode.items, tie, inject, mode)


@st.composite
def _crossovers(draw: st.DrawFn, mode: str) -> Any:
    kind = draw(st.sampled_from(("navigate", "navindex", "conversation", "none")))
    corpus, payload, index = draw(_TOKENS), draw(_TOKENS), draw(_TOKENS)
    if kind == "navigate":
        return navigate_verdict(mode, corpus, payload, PRICES)
    if kind == "navindex":
        return navindex_verdict(corpus, index, payload, PRICES, mode=mode)
    if kind == "conversation":
        return conversation_verdict(mode, corpus, payload, index, draw(_TOKENS), PRICES)
    return None


_DOLLARS = st.decimals(min_value=0, max_value=1000, places=4, allow_nan=False,
                       allow_infinity=False)


@st.composite
def _modes(draw: st.DrawFn, mode: str) -> ModeSummary:
    judged = draw(st.booleans())
    return ModeSummary(
        mode=mode, items=draw(_COUNT),
        document_bound=draw(_tallies()) if judged else None,
        controls=draw(_tallies()) if judged else None,
        document_bound_split=draw(_splits()) if judged else None,
        controls_split=draw(_splits()) if judged else None,
        judges=tuple(sorted(draw(st.sets(st.sampled_from(JUDGES), min_size=1)))) if judged
        else (),
        keyfacts=KeyFactRates(draw(_rates()), draw(st.none() | _rates())),
        evidence_recall=draw(st.none() | st.floats(0, 1).map(lambda x: round(x, 4))),
        footprint=Footprint(*(draw(st.integers(0, 10**8)) for _ in range(4))),
        cost=Costs(draw(_DOLLARS), draw(_DOLLARS), draw(_DOLLARS)),
        payload_tokens_mean=round(draw(st.floats(0, 1e6)), 1),
        crossover=None if mode == "inject" else draw(_crossovers(mode)),
        mode_traits=builtin_traits(mode), payload_cuts=draw(_COUNT), passages_cut=draw(_COUNT),
        unlocated_passages=draw(_COUNT))


@st.composite
def _summaries(draw: st.DrawFn) -> Summary:
    names = sorted(draw(st.sets(st.sampled_from(("inject", "navindex", "navagent",
                                                 "navembed:closure", "navembed:chunks")))))
    return Summary(backend=draw(st.sampled_from(("reference", "anthropic", "none"))),
                   models={"answer": draw(st.text(min_size=1, max_size=12)),
                           "judge": draw(st.text(min_size=1, max_size=12))},
                   price_card=draw(st.sampled_from(("default v1", "card \u00e9"))),
                   modes=tuple(draw(_modes(name)) for name in names),
                   unreported=tuple(f for f in USAGE_FIELDS if draw(st.booleans())),
                   errors=tuple(ItemError(f"q{n}-{name}", name, f"q{n}", draw(st.text(max_size=40)))
                                for n, name in enumerate(draw(st.lists(
                                    st.sampled_from(names or ["mine"]), max_size=3)))))


@settings(max_examples=150, deadline=None)
@given(_summaries())
def test_a_summary_reads_back_as_it_was_written(summary: Summary) -> None:
    written = to_builtins(summary)
    # Through JSON text, as results.json stores it.
    read = from_builtins(Summary, json.loads(json.dumps(written, allow_nan=False)))
    assert to_builtins(read) == written
    assert summary_lines(read) == summary_lines(summary)
    if all(entry.crossover is None for entry in summary.modes):
        assert read == summary  # the crossover's amounts come back as the floats written


def test_a_summary_that_is_not_one_is_refused() -> None:
    with pytest.raises(RecordError, match="^Summary: modes: Field required"):
        from_builtins(Summary, {"backend": "reference", "models": {}, "price_card": "default v1"})
    summary = Summary("reference", {}, "default v1",
                      (ModeSummary("navindex", 0, None, None, None, None, (),
                                   KeyFactRates(ReportedRate.of(0, 0), None), None,
                                   Footprint(0, 0, 0, 0), Costs(*[Decimal(0)] * 3), 0.0, None,
                                   builtin_traits("navindex")),))
    misfiled = to_builtins(summary)
    misfiled["modes"] = {"inject": misfiled["modes"]["navindex"]}  # type: ignore[index]
    with pytest.raises(RecordError, match="entry of mode 'navindex' is filed under 'inject'"):
        from_builtins(Summary, misfiled)


def test_the_summaries_of_replayed_runs_read_back_as_they_were_printed(runs: Runs) -> None:
    for folder, output in ((runs.a, runs.output_a), (runs.b, runs.output_b)):
        stored = json.loads((folder / "results.json").read_text(encoding="utf-8"))["summary"]
        read = from_builtins(Summary, stored)
        assert to_builtins(read) == stored
        # The summary the run printed is the summary its results file holds.
        assert "\n".join(summary_lines(read)) in output
        assert read_run(folder).summary == read
