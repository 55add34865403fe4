"""A plan before spending: per stage the calls a run will make and their estimated input,
cache and output tokens (``run.plan_calls``), priced interactively and through the Message
Batches API, with the prompt cache and without it, and at most (every output at its cap).

``make_plan`` is what ``legalbench plan`` prints and what a run checks against its spending
limit before its first call (``over_limit``). Pure: no model is called and nothing is written.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated

from pytest_legalbench.files.record_json import PLAIN_DECIMAL, Rounded, derived
from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.llm.cost_guard import PlanOverLimit
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import Cost, PriceCard, format_usd, price
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.run.plan_calls import (
    INJECT,
    OutputLengths,
    PlannedCall,
    PlanSelection,
    planned_calls,
)

__all__ = ["SCENARIOS", "Plan", "PlanOverLimit", "PlanRecord", "StageEstimate", "aggregate",
           "make_plan", "measured_calls", "over_limit"]

#: The version of a plan's JSON layout (``PlanRecord``).
PLAN_FORMAT = 1
#: The prices a plan shows for every arm and in total.
SCENARIOS = ("interactive", "batch", "interactive_uncached", "batch_uncached",
             "interactive_at_most", "batch_at_most")


@derived(footprint="footprint")
@dataclass(frozen=True)
class StageEstimate:
    """One stage of one arm: its calls and estimated tokens (its JSON layout, through
    ``files.record_json``, adds the footprint)."""

    arm: str
    stage: str
    model: str
    calls: Annotated[float, Rounded(2)]
    usage: Usage
    """Expected tokens, the cache used as the run uses it (first write, then reads)."""
    usage_at_most: Usage
    """The same with every output at its cap (and what later prompts carry of them)."""

    @property
    def uncached(self) -> Usage:
        """The expected tokens with no prompt cache: every input token at the input price."""
        return Usage(input_tokens=self.usage.footprint, output_tokens=self.usage.output_tokens)

    @property
    def footprint(self) -> int:
        """Every input token the stage's calls attend (expected)."""
        return self.usage.footprint

    def cost(self, card: PriceCard, scenario: str) -> Cost:
        """The dollars of this stage under one of ``SCENARIOS``."""
        batch = scenario.startswith("batch")
        usage = (self.uncached if scenario.endswith("uncached")
                 else self.usage_at_most if scenario.endswith("at_most") else self.usage)
        return price(usage, card, self.model, batch=batch)



Dollars = Annotated[Decimal, PLAIN_DECIMAL]


@dataclass(frozen=True)
class PlanCosts:
    """A plan's dollars under every scenario (``SCENARIOS``): per arm and in total."""

    arms: Mapping[str, Mapping[str, Dollars]]
    total: Mapping[str, Dollars]


@dataclass(frozen=True)
class InjectCacheChoice:
    """Inject's dollars through batches with its corpus cached 5 minutes and 1 hour."""

    five_minute: Dollars
    one_hour: Dollars


@dataclass(frozen=True)
class PlanRecord:
    """A plan as ``legalbench plan --json`` writes it (``files.record_json``)."""

    format: int
    price_card: str
    questions: int
    items: int
    modes: tuple[str, ...]
    payload_budget_tokens: int
    answer_max_tokens: int
    outputs: str
    token_estimate: str
    stages: tuple[StageEstimate, ...]
    cost: PlanCosts
    inject_cache_1h_batch: InjectCacheChoice | None
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """Every stage of a run, estimated, and how to price it."""

    stages: tuple[StageEstimate, ...]
    card: PriceCard
    questions: int
    items: int
    modes: tuple[str, ...]
    payload_budget: int
    answer_max_tokens: int
    outputs: str
    """Where the output lengths come from: ``assumed`` or the run they were measured on."""
    notes: tuple[str, ...] = ()
    inject_prefixes: int = 1
    """The cached prefixes inject writes: one for the corpus, one per transaction set read
    under set scope (``modes.inject_scope``)."""

    @property
    def arms(self) -> tuple[str, ...]:
        """The arms in order: inject first, then the modes as their stages appear."""
        return tuple(dict.fromkeys(stage.arm for stage in self.stages))

    def cost(self, scenario: str, arm: str | None = None) -> Decimal:
        """The dollars of the run (or of one arm) under one of ``SCENARIOS``."""
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}: choose one of "
                             f"{', '.join(SCENARIOS)}")
        total = Cost()
        for stage in self.stages:
            if arm is None or stage.arm == arm:
                total = total + stage.cost(self.card, scenario)
        return total.total

    def one_hour_inject(self, *, batch: bool = True) -> tuple[Decimal, Decimal] | None:
        """Inject's dollars with its documents cached for 5 minutes and for 1 hour (each prefix
        written once at the 1-hour rate, then read); None when inject writes no cache, or
        reads none of what it writes (a longer lifetime then saves nothing)."""
        inject = [s for s in self.stages if s.arm == INJECT and s.usage.cache_creation_input_tokens]
        if not inject or not any(s.usage.cache_read_input_tokens for s in inject):
            return None
        five = one = Decimal(0)
        for stage in inject:
            usage = stage.usage
            longer = Usage(usage.input_tokens, usage.cache_creation_input_tokens,
                           usage.cache_read_input_tokens, usage.output_tokens,
                           cache_write_1h_tokens=usage.cache_creation_input_tokens)
            five += price(usage, self.card, stage.model, batch=batch).total
            one += price(longer, self.card, stage.model, batch=batch).total
        return five, one

    def record(self) -> PlanRecord:
        """The plan as its JSON record (dollars exact, as decimal strings when written)."""
        one_hour = self.one_hour_inject()
        return PlanRecord(
            format=PLAN_FORMAT, price_card=self.card.label, questions=self.questions,
            items=self.items, modes=self.modes, payload_budget_tokens=self.payload_budget,
            answer_max_tokens=self.answer_max_tokens, outputs=self.outputs,
            token_estimate="ceil(characters / 4)", stages=self.stages,
            cost=PlanCosts(
                arms={arm: {scenario: self.cost(scenario, arm) for scenario in SCENARIOS}
                      for arm in self.arms},
                total={scenario: self.cost(scenario) for scenario in SCENARIOS}),
            inject_cache_1h_batch=None if one_hour is None else InjectCacheChoice(*one_hour),
            notes=self.notes)

    def lines(self) -> list[str]:
        """The plan as a person reads it."""
        found = [(f"plan: {self.questions} questions, {self.items} items "
                 f"({', '.join(self.modes)}); payload budget {self.payload_budget:,} tokens; "
                 f"answers at most {self.answer_max_tokens:,} tokens"),
                 f"tokens estimated as ceil(characters / 4); outputs {self.outputs}",
                 "",
                 (f"{'arm':<18}{'stage':<22}{'model':<20}{'calls':>7}{'input':>11}"
                 f"{'cache write':>13}{'cache read':>13}{'output':>10}{'output max':>12}")]
        for stage in self.stages:
            usage, most = stage.usage, stage.usage_at_most
            found.append(f"{stage.arm:<18.17}{stage.stage:<22.21}"
                         f"{stage.model:<20.19}{_count(stage.calls):>7}"
                         f"{usage.input_tokens:>11,}{usage.cache_creation_input_tokens:>13,}"
                         f"{usage.cache_read_input_tokens:>13,}{usage.output_tokens:>10,}"
                         f"{most.output_tokens:>12,}")
        found += ["", (f"dollars at {self.card.label}: expected, with the prompt cache / "
                      f"without it / at most (outputs at their caps)"),
                  (f"{'':<22}{'interactive':>13}{'batch':>11}{'no cache':>11}{'batch':>11}"
                  f"{'at most':>11}{'batch':>11}")]
        for arm in (*self.arms, None):
            found.append(f"{arm or 'total':<22}" + "".join(
                f"{format_usd(self.cost(scenario, arm)):>{13 if n == 0 else 11}}"
                for n, scenario in enumerate(SCENARIOS)))
        one_hour = self.one_hour_inject()
        if one_hour is not None:
            five, one = one_hour
            sets = self.inject_prefixes
            what, once, each = (("its corpus", "once", "it") if sets <= 1 else
                                (f"its {sets:,} transaction sets", "once per set",
                                 "a set (on average)"))
            found += ["", (f"inject through batches: {what} cached 5 minutes "
                          f"{format_usd(five)}, 1 hour {format_usd(one)} if every later "
                          f"request reads {'it' if sets <= 1 else 'them'}. A batch can take "
                          f"longer than 5 minutes between two of its requests; a 5-minute "
                          f"cache written again costs {format_usd(self._rewrite())} each time "
                          f"for {each}, so the 1-hour cache ({format_usd(one - five)} more, "
                          f"{once}) pays as soon as it saves one such rewrite"
                          f"{'' if sets <= 1 else ' per set'}.")]
        found += [f"note: {note}" for note in self.notes]
        return found

    def _rewrite(self) -> Decimal:
        """The dollars of writing one of inject's prefixes (the corpus, or a transaction set on
        average) to the 5-minute cache once more (batch)."""
        for stage in self.stages:
            if stage.arm == INJECT and stage.usage.cache_creation_input_tokens:
                written = stage.usage.cache_creation_input_tokens / max(1, self.inject_prefixes)
                return price(Usage(cache_creation_input_tokens=round(written)), self.card,
                             stage.model, batch=True).total
        return Decimal(0)


def make_plan(selection: PlanSelection, card: PriceCard,
              outputs: OutputLengths | None = None) -> Plan:
    """Plan every call of ``selection``'s items and price them at ``card``."""
    outputs = outputs or OutputLengths()
    calls, notes = planned_calls(selection, outputs)
    items = selection.planned_items()
    return Plan(stages=aggregate(calls), card=card,
                questions=len({question.id for question, _ in items}), items=len(items),
                modes=tuple(dict.fromkeys(mode for _, mode in items)),
                payload_budget=selection.mode_settings.payload_budget_tokens,
                answer_max_tokens=selection.answer_max_tokens,
                outputs=("assumed (a cited answer of about 300 tokens, a verdict of 120; a "
                         "judge's input holds the answers it compares, so it rests on them "
                         "too; a run on this backend and models measures them for the next "
                         "plan)"
                         if outputs.source == "assumed"
                         else f"measured on {outputs.source}"),
                notes=tuple(notes),
                inject_prefixes=len({call.share for call in calls
                                     if call.arm == INJECT and call.cached}))


def over_limit(plan: Plan, limit: Decimal, *, batch: bool) -> None:
    """Raise PlanOverLimit, with the plan in the message, when the run's expected cost (with
    the prompt cache, interactive or batch) exceeds ``limit`` dollars."""
    scenario = "batch" if batch else "interactive"
    expected = plan.cost(scenario)
    if expected > limit:
        raise PlanOverLimit("\n".join([
            (f"the plan of this run costs {format_usd(expected)} "
            f"({'through batches' if batch else 'interactively'}), more than the spending "
            f"limit of {format_usd(limit)}: nothing was called"), *plan.lines()]))


def aggregate(calls: Iterable[PlannedCall]) -> tuple[StageEstimate, ...]:
    """Sum planned calls per arm, stage and model; calls sharing a cached prefix write it
    once and read it after."""
    groups: dict[tuple[str, str, str], list[PlannedCall]] = defaultdict(list)
    for call in calls:
        groups[(call.arm, call.stage, call.model)].append(call)
    written: set[str] = set()
    found = []
    for (arm, stage, model), members in groups.items():
        write = read = 0.0
        for call in members:
            if not call.cached:
                continue
            key = None if call.share is None else f"{call.model}\0{call.share}"
            if key is None:
                write += call.cached * call.count
            elif key in written:
                read += call.cached * call.count
            else:
                written.add(key)
                write += call.cached
                read += call.cached * max(0.0, call.count - 1)
        uncached = sum(call.uncached * call.count for call in members)
        uncached_max = sum((call.uncached_max if call.uncached_max is not None
                            else call.uncached) * call.count for call in members)
        output = sum(call.output * call.count for call in members)
        output_max = sum(call.output_max * call.count for call in members)
        usage = Usage(_whole(uncached), _whole(write), _whole(read), _whole(output))
        most = Usage(_whole(uncached_max), _whole(write), _whole(read), _whole(output_max))
        found.append(StageEstimate(arm, stage, model, sum(c.count for c in members), usage,
                                   most))
    return tuple(found)


def measured_calls(qa: Iterable[ItemRecord],
                   gandr: Iterable[GandrRecord] = ()) -> list[tuple[str, Call]]:
    """Every call of a stored run with the arm it served: inject's answer once per question
    (every item of the question carries it), each mode's retrieval, answer and judging, and
    each GANDR item's calls and grading."""
    found: list[tuple[str, Call]] = []
    injected: set[str] = set()
    for record in qa:
        if record.question_id not in injected:
            injected.add(record.question_id)
            found.extend((INJECT, call) for call in record.inject_calls)
        found.extend((record.mode, call) for call in (*record.mode_calls, *record.judge_calls))
    for item in gandr:
        found.extend((item.system, call) for repeat in item.repeats for call in repeat.calls)
        found.extend((item.system, call) for call in item.judge_calls)
    return found


def _whole(value: float) -> int:
    return max(0, math.ceil(value - 1e-9))


def _count(calls: float) -> str:
    return f"{calls:,.0f}" if abs(calls - round(calls)) < 0.05 else f"{calls:,.1f}"
