"""The plan before spending: what is known before a run is counted exactly as the run counts
it (checked against a run through the reference backend), the rules for the rest, the cache
arithmetic, the six prices, and the check a run makes against its spending limit."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

import pytest

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.ingest.questions import Evidence, Question
from pytest_legalbench.judging.judge import judge_pair
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import format_usd, load_price_card, price
from pytest_legalbench.modes.base import ModeSettings, ModeUnavailable
from pytest_legalbench.modes.inject import InjectMode
from pytest_legalbench.modes.inject_context import ANSWER_HEADROOM, DoesNotFit, inject_context
from pytest_legalbench.modes.navigate import NavindexMode
from pytest_legalbench.run.answering import respond
from pytest_legalbench.run.cost_plan import (
    SCENARIOS,
    Plan,
    PlanOverLimit,
    StageEstimate,
    aggregate,
    make_plan,
    measured_calls,
    over_limit,
)
from pytest_legalbench.run.items import Case
from pytest_legalbench.run.plan_calls import (
    ASSUMED_OUTPUT,
    OutputLengths,
    PlannedCall,
    PlanSelection,
    planned_calls,
)
from pytest_legalbench.run.qa import QaRunner, QaSettings
from pytest_legalbench.tokens import estimate_tokens
from tests.support.item_records import PASS, qa_record
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    SUPPLY,
    SUPPLY_AMENDMENT,
    lease_corpus,
    reference_client,
    two_deal_corpus,
)

CARD = load_price_card()


def question(qid: str, text: str, reference: str | None = "Rent is due monthly.") -> Question:
    return Question(id=qid, question=text, reference=reference, kind="lookup",
                    documents=(LEASE,), evidence=(Evidence(LEASE, "rent"),),
                    must_contain=("rent",), difficulty="easy", practice_area="leasing")


QUESTIONS = (question("rent", "What rent does the Lessee pay?"),
             question("term", "When does the lease term end?"),
             question("law", "Which law governs the lease?", reference=None))


def selection(**changes: object) -> PlanSelection:
    corpus = lease_corpus()
    base = PlanSelection(questions=QUESTIONS, modes=("navindex",), documents=corpus.documents,
                         indexes=corpus.indexes)
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def by_stage(plan: Plan) -> dict[tuple[str, str], StageEstimate]:
    return {(stage.arm, stage.stage): stage for stage in plan.stages}


def test_the_known_prompts_are_counted_as_a_run_through_the_reference_backend_counts_them(
        ) -> None:
    corpus = lease_corpus()
    with reference_client() as client:
        inject, navindex = InjectMode(corpus, ModeSettings()), NavindexMode(
            corpus, ModeSettings(), client)
        answers = {}
        for asked in QUESTIONS:
            answers[asked.id] = (respond(inject, asked.question, client, "m",
                                         question_id=asked.id)[1].text,
                                 respond(navindex, asked.question, client, "m",
                                         question_id=asked.id)[1].text)
        for asked in QUESTIONS:
            judge_pair(client, asked.question, asked.reference, inject=answers[asked.id][0],
                       mode=answers[asked.id][1], inject_correct=True, mode_correct=True,
                       judge="reference-anchored", model="m", question_id=asked.id)
        ledger = client.ledger.calls
    arms = {"inject.answer": "inject"}
    measured = [(arms.get(call.stage, "navindex"), call) for call in ledger]
    outputs = OutputLengths.calibrated(measured, "this run")
    plan = make_plan(selection(), CARD, outputs)
    actual: dict[str, Usage] = {}
    for call in ledger:
        actual[call.stage] = actual.get(call.stage, Usage()) + call.usage
    stages = by_stage(plan)
    # Inject and the scan send nothing a run decides: their tokens are exactly the ledger's,
    # the cached corpus and index written once and then read.
    for key in (("inject", "inject.answer"), ("navindex", "navindex.scan")):
        estimate = stages[key].usage
        assert dataclasses.replace(estimate, output_tokens=0) == dataclasses.replace(
            actual[key[1]], output_tokens=0)
        assert estimate.cache_creation_input_tokens > 0
        assert estimate.cache_read_input_tokens == 2 * estimate.cache_creation_input_tokens
    # The judge's prompt is known but for the two answers: with their lengths measured, it
    # is within a token per call (each answer's length is a mean, rounded up).
    for direction in ("judge.forward", "judge.reverse"):
        assert abs(stages[("navindex", direction)].usage.input_tokens
                   - actual[direction].input_tokens) <= 3
    # The answering prompt's payload is estimated (a full budget of leaf-sized provisions).
    assert stages[("navindex", "navindex.answer")].usage.input_tokens > 6000


def test_outputs_are_assumed_by_the_kind_of_stage_until_a_run_measures_them() -> None:
    assumed = OutputLengths()
    assert assumed.output("navembed.answer") == ASSUMED_OUTPUT["answer"] == 300
    assert assumed.output("navagent.turn3") == ASSUMED_OUTPUT["turn"]
    assert assumed.output("b4.research") == ASSUMED_OUTPUT["research"]
    assert assumed.output("some.new_stage") == ASSUMED_OUTPUT["answer"]
    calls = [("navagent", Call(f"navagent.turn{n}", "m", Usage(output_tokens=out), 0.1,
                               "reference", question_id=qid))
             for qid, turns in (("a", 3), ("b", 1)) for n, out in
             zip(range(1, turns + 1), (40, 60, 80), strict=False)]
    calls.append(("navagent", Call("navagent.answer", "m", Usage(output_tokens=90), 0.1,
                                   "reference", question_id="a")))
    measured = OutputLengths.calibrated(calls, "run A")
    assert measured.per_stage == {"navagent.turn1": 40, "navagent.turn2": 60,
                                  "navagent.turn3": 80, "navagent.answer": 90}
    # Turn 1 on both items, turns 2 and 3 on one of the two.
    assert measured.calls_per_item == {"navagent.turn1": 1.0, "navagent.turn2": 0.5,
                                       "navagent.turn3": 0.5, "navagent.answer": 0.5}
    assert measured.source == "run A"


def test_a_shared_cached_prefix_is_written_once_then_read_and_an_unshared_one_each_time(
        ) -> None:
    calls = [PlannedCall("inject", "inject.answer", "m", 1, cached=1000, uncached=20,
                         output=50, output_max=2048, share="corpus") for _ in range(3)]
    calls += [PlannedCall("navindex", "navindex.scan", "m", 2, cached=300, uncached=10,
                          output=5, output_max=1024, share=None),
              PlannedCall("navindex", "navindex.answer", "m", 1, cached=0, uncached=7000,
                          output=100, output_max=2048, uncached_max=7100)]
    stages = {s.stage: s for s in aggregate(calls)}
    assert stages["inject.answer"].usage == Usage(60, 1000, 2000, 150)
    assert stages["navindex.scan"].usage == Usage(20, 600, 0, 10)
    assert stages["navindex.answer"].usage_at_most == Usage(7100, 0, 0, 2048)
    assert stages["inject.answer"].calls == 3


def test_the_six_prices_of_a_plan() -> None:
    stage = StageEstimate("inject", "inject.answer", "m", 2, Usage(1_000, 100_000, 100_000, 500),
                          Usage(1_000, 100_000, 100_000, 4_096))
    plan = Plan((stage,), CARD, questions=2, items=2, modes=("inject",), payload_budget=6000,
                answer_max_tokens=2048, outputs="assumed")
    costs = {scenario: plan.cost(scenario) for scenario in SCENARIOS}
    # 1,000 x $3 + 100,000 x $3.75 + 100,000 x $0.30 + 500 x $15, per million.
    assert costs["interactive"] == Decimal("0.4155")
    assert costs["batch"] == Decimal("0.20775")
    # Without the cache all 201,000 input tokens are read at $3.
    assert costs["interactive_uncached"] == Decimal("0.6105")
    assert costs["batch_uncached"] == Decimal("0.30525")
    assert costs["interactive_at_most"] == Decimal("0.46944")
    assert costs["batch_at_most"] == Decimal("0.23472")
    five, one = plan.one_hour_inject() or (None, None)
    # The 1-hour write costs $6 instead of $3.75 a million, at the batch rate: + $0.1125.
    assert (five, one) == (Decimal("0.20775"), Decimal("0.32025"))
    with pytest.raises(ValueError, match="unknown scenario 'cheap'"):
        plan.cost("cheap")


def test_a_run_over_its_limit_stops_with_the_plan_in_the_message() -> None:
    plan = make_plan(selection(), CARD)
    expected = plan.cost("interactive")
    over_limit(plan, expected, batch=False)  # at the limit is within it
    with pytest.raises(PlanOverLimit) as stopped:
        over_limit(plan, expected - Decimal("0.0001"), batch=False)
    message = str(stopped.value)
    assert message.startswith(f"the plan of this run costs ${expected:.4f} (interactively), "
                              f"more than the spending limit")
    assert "navindex.scan" in message and "nothing was called" in message
    over_limit(plan, expected / 2 + Decimal("0.0001"), batch=True)


def test_questions_without_reference_are_judged_by_preference_and_keyfacts_calls_no_judge(
        ) -> None:
    def judged(**changes: object) -> list[int]:
        calls, _ = planned_calls(selection(**changes))
        return [c.uncached for c in calls if c.stage == "judge.forward"]

    anchored, preference = judged(), judged(judge="preference")
    assert len(anchored) == 3
    # The question without a reference is judged by preference under either protocol; the
    # others' prompts change with it.
    assert anchored[2] == preference[2]
    assert anchored[:2] != preference[:2]
    calls, _ = planned_calls(selection(judge="keyfacts"))
    assert not [c for c in calls if c.stage.startswith("judge.")]


def test_inject_answers_once_per_question_whatever_the_modes() -> None:
    calls, _ = planned_calls(selection(modes=("inject", "navindex", "navembed:chunks")))
    assert sum(1 for c in calls if c.stage == "inject.answer") == 3
    assert {c.stage for c in calls if c.arm == "navembed:chunks"} == {
        "navembed.answer", "judge.forward", "judge.reverse"}


def test_a_question_inject_cannot_answer_plans_no_call_as_its_run_makes_none() -> None:
    small = ModeSettings(context_window=500)
    corpus = lease_corpus()
    # The run: the item asks inject first, which does not fit, and is skipped before any call.
    with reference_client() as client:
        runner = QaRunner(corpus.documents, corpus.indexes, client,
                          QaSettings("m", "m", "reference-anchored", small))
        with pytest.raises(ModeUnavailable, match="inject does not fit"):
            runner.run(Case(QUESTIONS[0], "navindex"))
        assert not client.ledger.calls
    calls, notes = planned_calls(selection(mode_settings=small))
    assert calls == []
    # auto: the corpus does not fit, so each question's set is read; no set fits either.
    assert notes[0].startswith("inject reads each question's transaction set (auto: inject "
                               "does not fit")
    assert notes[1].startswith("inject cannot run for 3 question(s) (inject does not fit: ")
    assert notes[1].endswith("): their items make no call")


def _two_sets() -> tuple[PlanSelection, tuple[Question, ...], ModeSettings]:
    """The lease and the supply deal filed as two transaction sets, a window each set fits
    and the two together do not, and three questions: two on the lease, one on the supply."""
    base = two_deal_corpus()
    sets = {LEASE: "lease-set", LEASE_AMENDMENT: "lease-set", SUPPLY: "supply-set",
            SUPPLY_AMENDMENT: "supply-set"}
    documents = tuple(dataclasses.replace(d, transaction_set=sets[d.doc_id])
                      for d in base.documents)
    lease, supply = documents[:2], documents[2:]
    largest = max(inject_context(part).corpus_tokens for part in (lease, supply))
    window = largest + estimate_tokens(inject_context(lease).instructions) + ANSWER_HEADROOM
    with pytest.raises(DoesNotFit):
        inject_context(documents, window)
    asked = (*QUESTIONS[:2], dataclasses.replace(
        question("minimum", "What is the Minimum Volume?", "400 tonnes a quarter."),
        documents=(SUPPLY,), evidence=(Evidence(SUPPLY, "400 tonnes"),)))
    settings = ModeSettings(context_window=window)
    return (PlanSelection(questions=asked, modes=("navindex",), documents=documents,
                          indexes=base.indexes, mode_settings=settings), asked, settings)


def test_inject_under_set_scope_is_planned_per_transaction_set_as_a_run_sends_it() -> None:
    planned, asked, settings = _two_sets()
    with reference_client() as client:
        runner = QaRunner(planned.documents, planned.indexes, client,
                          QaSettings("m", "m", "reference-anchored", settings))
        for each in asked:
            runner.inject_answer(each)
        sent = [call.usage for call in client.ledger.calls]
    assert [call.stage for call in client.ledger.calls] == ["inject.answer"] * 3
    plan = make_plan(planned, CARD)
    estimate = by_stage(plan)[("inject", "inject.answer")].usage
    # Each set is written once and read after (the second lease question): the plan's
    # prompt tokens are the run's, part for part.
    actual = sum(sent, Usage())
    assert dataclasses.replace(estimate, output_tokens=0) == dataclasses.replace(
        actual, output_tokens=0)
    assert [bool(usage.cache_read_input_tokens) for usage in sent] == [False, True, False]
    assert "inject reads each question's transaction set (auto: " in plan.notes[0]
    # The 1-hour choice is priced per set: rewriting one costs a set's write, not all of them.
    assert plan.inject_prefixes == 2
    line = next(line for line in plan.lines() if line.startswith("inject through batches"))
    assert line.startswith("inject through batches: its 2 transaction sets cached 5 minutes")
    one_set = price(Usage(cache_creation_input_tokens=round(
        estimate.cache_creation_input_tokens / 2)), CARD, "claude-sonnet-4-6", batch=True)
    assert f"costs {format_usd(one_set.total)} each time for a set (on average)" in line
    # One question per set reads no prefix another wrote: a longer lifetime saves nothing.
    alone = make_plan(dataclasses.replace(planned, questions=asked[1:]), CARD)
    assert alone.one_hour_inject() is None
    assert not [line for line in alone.lines() if line.startswith("inject through batches")]
    # Every item is answered and judged, inject among them.
    stages = {(s.arm, s.stage): s.calls for s in plan.stages}
    assert stages == {("inject", "inject.answer"): 3, ("navindex", "navindex.scan"): 3,
                      ("navindex", "navindex.answer"): 3, ("navindex", "judge.forward"): 3,
                      ("navindex", "judge.reverse"): 3}
    # Asked to read the corpus in the same window, inject cannot: nothing is planned.
    corpus_scope = dataclasses.replace(planned, mode_settings=dataclasses.replace(
        settings, inject_scope="corpus"))
    calls, notes = planned_calls(corpus_scope)
    assert calls == [] and notes[0].startswith("inject cannot run for 3 question(s)")


def test_an_index_over_the_scan_budget_plans_a_document_pick_and_unshared_scans() -> None:
    plan = make_plan(selection(mode_settings=ModeSettings(scan_budget_tokens=10)), CARD)
    stages = by_stage(plan)
    assert stages[("navindex", "navindex.scan_documents")].calls == 3
    scan = stages[("navindex", "navindex.scan")].usage
    assert scan.cache_read_input_tokens == 0 and scan.cache_creation_input_tokens > 0


def test_items_can_be_named_one_by_one() -> None:
    plan = make_plan(selection(items=(("rent", "navindex"), ("law", "inject"))), CARD)
    assert (plan.questions, plan.items, plan.modes) == (2, 2, ("navindex", "inject"))
    assert by_stage(plan)[("inject", "inject.answer")].calls == 2
    with pytest.raises(ValueError, match="items name unknown questions: nope"):
        planned_calls(selection(items=(("nope", "navindex"),)))


def test_gandr_items_plan_every_step_per_repeat_and_the_grading() -> None:
    plan = make_plan(selection(modes=("gandr", "gandr:b4", "gandr:b5"), repeats=3), CARD)
    calls = {key: stage.calls for key, stage in by_stage(plan).items()}
    per_item = {"gandr.draft": 3, "gandr.audit": 3, "gandr.rubric": 3, "gandr.critic": 3,
                "b4.research": 3, "b4.write": 3, "b5.plan": 3, "b5.review": 3}
    for (arm, stage), count in calls.items():
        if stage in per_item:
            assert count == 3 * per_item[stage], (arm, stage)
    # Two questions have references: a grade per repeat; every item: C(3, 2) = 3 pairs.
    assert calls[("gandr", "judge.correctness")] == 2 * 3
    assert calls[("gandr", "judge.equivalence")] == 3 * 3
    assert "inject.answer" not in {stage for _, stage in calls}
    stages = by_stage(plan)
    # B5's later steps carry the conversation before them.
    assert (stages[("gandr:b5", "b5.rewrite")].usage.input_tokens
            > stages[("gandr:b5", "b5.review")].usage.input_tokens
            > stages[("gandr:b5", "b5.draft")].usage.input_tokens)
    measured = OutputLengths({}, {"gandr.draft": 2.5}, "run B")
    stages = by_stage(make_plan(selection(modes=("gandr",), repeats=3), CARD, measured))
    assert stages[("gandr", "gandr.draft")].calls == 3 * 2.5


def test_measured_calls_take_inject_once_per_question() -> None:
    usage = Usage(input_tokens=5)
    inject = (Call("inject.answer", "m", usage, 0.1, "reference", question_id="q"),)
    first = dataclasses.replace(qa_record(1, "tie", PASS, PASS), question_id="q",
                                mode="navindex",
                                inject_calls=inject, judge_calls=(), mode_calls=(
                                    Call("navindex.scan", "m", usage, 0.1, "reference",
                                         question_id="q"),))
    second = dataclasses.replace(first, mode="navembed:closure", mode_calls=())
    found = measured_calls([first, second])
    assert [(arm, call.stage) for arm, call in found] == [("inject", "inject.answer"),
                                                          ("navindex", "navindex.scan")]


def test_a_plan_is_plain_json_and_reads_as_a_table() -> None:
    plan = make_plan(selection(modes=("navindex", "navembed:closure")), CARD)
    data = json.loads(json.dumps(to_builtins(plan.record())))
    assert data["format"] == 1 and data["items"] == 6 and data["questions"] == 3
    assert set(data["cost"]["total"]) == set(SCENARIOS)
    assert Decimal(data["cost"]["total"]["batch"]) * 2 == Decimal(
        data["cost"]["total"]["interactive"])
    lines = plan.lines()
    assert lines[0] == ("plan: 3 questions, 6 items (navindex, navembed:closure); payload "
                        "budget 6,000 tokens; answers at most 2,048 tokens")
    assert any(line.startswith("inject through batches: its corpus cached 5 minutes")
               for line in lines)
    assert lines[-1].startswith("inject through batches") or lines[-1].startswith("note:")
