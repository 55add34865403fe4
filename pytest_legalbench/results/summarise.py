"""Item records summarised per mode into the typed ``Summary`` (``results.summary``): verdict
tallies and their key-fact split, key-fact accuracy, evidence recall, token footprints, costs
under the price card and the caching crossover."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean

from pytest_legalbench.judging.pairing import tally
from pytest_legalbench.llm.ledger import USAGE_FIELDS, Call, sum_usage
from pytest_legalbench.llm.pricing import PriceCard, price_calls
from pytest_legalbench.results.batch_share import batch_share
from pytest_legalbench.results.crossover import (
    conversation_verdict,
    navigate_verdict,
    navindex_verdict,
)
from pytest_legalbench.results.error_attribution import ArmErrors, count_classes
from pytest_legalbench.results.item_errors import ItemError
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.run_statistics import run_statistics
from pytest_legalbench.results.summary import (
    ArmScopes,
    Costs,
    Footprint,
    KeyFactRates,
    ModeSummary,
    Summary,
)
from pytest_legalbench.results.verdict_split import split_verdicts


def _footprint(calls: Iterable[Call], answering_only: bool = False) -> int:
    return sum(c.usage.footprint for c in calls
               if not answering_only or c.stage.endswith(".answer"))


def _answering_mean(calls: Sequence[Call]) -> float:
    found = [c.usage.footprint for c in calls if c.stage.endswith(".answer")]
    return fmean(found) if found else 0.0


def summarise_mode(records: Sequence[ItemRecord], card: PriceCard) -> ModeSummary:
    """One mode's summary from its records (all of the same mode)."""
    mode = records[0].mode
    bound = [r for r in records if not r.out_of_scope]
    controls = [r for r in records if r.out_of_scope]
    judged = [r for r in records if r.verdict is not None]
    keyfacts = KeyFactRates(
        inject=ReportedRate.of(sum(r.keyfacts_inject.correct for r in records), len(records)),
        mode=(ReportedRate.of(sum(bool(r.keyfacts_mode and r.keyfacts_mode.correct)
                                  for r in records), len(records))
              if any(r.keyfacts_mode is not None for r in records) else None))
    recalls = [r.evidence_recall for r in bound if r.evidence_recall is not None]
    inject_calls = [c for r in records for c in r.inject_calls]
    mode_calls = [c for r in records for c in r.mode_calls] or inject_calls
    judge_calls = [c for r in records for c in r.judge_calls]
    share = batch_share([*inject_calls, *(c for r in records for c in r.mode_calls),
                         *judge_calls])
    # A crossover priced as the run was: at the batch rates when all its calls were batch.
    batch = share is not None and share.all
    rates = "batch prices" if batch else ""
    traits = records[0].mode_traits
    crossover = None
    # What inject's answering context was: the corpus, or (scoped per question) a
    # transaction set, whose mean size the break-even is then compared with.
    context = ("corpus" if arm_scopes(records).inject == "corpus"
               else "inject's context (mean per question)")
    if not traits.baseline and records[0].mode_calls:
        # The crossover in tokens the model actually read: the baseline's answering context
        # is the corpus C, the mode's is its payload R, and a scan reads its index I; a
        # conversation's every turn reads context, so all its input counts, priced as
        # measured.
        corpus = _answering_mean(inject_calls)
        payload = _answering_mean(mode_calls)
        prices = card.prices_for(records[0].mode_calls[-1].model, batch=batch)
        scan = fmean(r.scan_tokens for r in records)
        if traits.crossover == "conversation":
            total = sum_usage(c.usage for c in mode_calls)
            items = len(records)
            crossover = conversation_verdict(
                mode, corpus, total.input_tokens / items,
                total.cache_creation_input_tokens / items, total.cache_read_input_tokens / items,
                prices, rates=rates, context=context)
        elif traits.crossover == "index":
            crossover = navindex_verdict(corpus, scan, payload, prices, mode, rates=rates,
                                         context=context)
        else:
            crossover = navigate_verdict(mode, corpus, payload, prices, rates=rates, context=context)
    return ModeSummary(
        mode=mode, items=len(records),
        document_bound=tally(r.verdict for r in bound if r.verdict) if judged else None,
        controls=tally(r.verdict for r in controls if r.verdict) if judged else None,
        document_bound_split=split_verdicts(bound) if judged else None,
        controls_split=split_verdicts(controls) if judged else None,
        judges=tuple(sorted({r.judge for r in judged})), keyfacts=keyfacts,
        evidence_recall=round(fmean(recalls), 4) if recalls else None,
        footprint=Footprint(
            inject_total=_footprint(inject_calls),
            inject_answering=_footprint(inject_calls, answering_only=True),
            mode_total=_footprint(mode_calls),
            mode_answering=_footprint(mode_calls, answering_only=True)),
        cost=Costs(inject=price_calls(inject_calls, card).total,
                   mode=price_calls(mode_calls, card).total,
                   judge=price_calls(judge_calls, card).total),
        payload_tokens_mean=round(fmean(r.payload_tokens for r in records), 1),
        crossover=crossover, mode_traits=traits, batch=share, scopes=arm_scopes(records),
        errors=ArmErrors(mode=count_classes(r.error_class for r in records),
                         inject=count_classes(r.inject_error_class for r in records)),
        payload_cuts=sum(r.payload_cut is not None for r in records),
        passages_cut=sum(r.payload_cut.cut for r in records if r.payload_cut is not None),
        unlocated_passages=sum(len(r.unlocated) for r in records))


def arm_scopes(records: Sequence[ItemRecord]) -> ArmScopes:
    """What the inject arm and the mode of ``records`` read (``mixed`` when items differ)."""
    def one(scopes: set[str]) -> str:
        return scopes.pop() if len(scopes) == 1 else "mixed"

    return ArmScopes(inject=one({r.inject_scope for r in records}),
                     mode=one({r.mode_scope for r in records}))


def summarise(records: Iterable[ItemRecord], card: PriceCard, *, backend: str,
              models: Mapping[str, str], order: Sequence[str] = (),
              errors: Iterable[ItemError] = ()) -> Summary:
    """The whole session's summary: one entry per mode, in mode-name order, the paired
    statistics (its comparisons in ``order``, the order the run named its modes) and the
    items that failed with an error."""
    found = sorted(records, key=lambda r: (r.mode, r.question_id))
    by_mode: dict[str, list[ItemRecord]] = {}
    for record in found:
        by_mode.setdefault(record.mode, []).append(record)
    calls = [c for group in by_mode.values() for r in group
             for c in (*r.inject_calls, *r.mode_calls, *r.judge_calls)]
    return Summary(backend=backend, models=dict(models), price_card=card.label,
                   modes=tuple(summarise_mode(group, card) for group in by_mode.values()),
                   unreported=unreported_usage(calls), statistics=run_statistics(found, order),
                   errors=tuple(sorted(errors, key=lambda e: (e.mode, e.question_id))))


def unreported_usage(calls: Iterable[Call]) -> tuple[str, ...]:
    """The usage fields any of ``calls`` came without, in ``USAGE_FIELDS`` order."""
    missing = {name for call in calls for name in call.unreported}
    return tuple(name for name in USAGE_FIELDS if name in missing)
