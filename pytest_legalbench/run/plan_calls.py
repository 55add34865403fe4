"""What each model call of a run will send, estimated before any call is made: per item, the
calls of every stage with their prompt tokens (the cache-marked prefix apart from the rest)
and their output tokens, expected and at the caps.

Everything a prompt holds that is known before the run is built with the same prompt
functions the run uses and counted as the run counts (``tokens.estimate_tokens``, each
system block, tool and message on its own): the documents inject reads (the corpus, or each
question's transaction set when the run's inject scope resolves so: ``modes.inject_scope``),
the index a scan reads, every template, every question and reference. A question inject
cannot answer (its documents do not fit the window) is planned as the run treats its items:
skipped before any call. What only the run reveals is estimated by rule:

* a retrieval mode's payload fills ``payload_budget_tokens`` (the budget is what the modes take
  provisions up to); a k-capped strategy takes at most k units of the corpus's mean unit size
  (each mode's ``CallShape``, from the mode registry, says which it is and whether a scan or a
  titles pick precedes its answer);
* the provisions in a payload are leaf-sized (the mean size of the corpus's leaf provisions),
  each wrapped in its tag with the corpus's mean tag length;
* model outputs are the ``OutputLengths`` given (assumed defaults, or the means of a previous
  run's ledger: ``OutputLengths.calibrated``); at the caps they are each call's ``max_tokens``;
* a mode that answers as it navigates (navagent) navigates for at most ``agent_turns`` turns
  and ``agent_tokens`` input tokens, and a GANDR item takes one round per repeat, unless a
  previous run says how many calls its stages took per item.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_legalbench.defaults import DEFAULT_JUDGE, DEFAULT_REPEATS
from pytest_legalbench.gandr import prompting
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.gandr.systems import GANDR, baseline_of, is_system
from pytest_legalbench.gandr.tool_specs import (
    claim_audit_tool,
    correctness_tool,
    critic_tool,
    equivalence_tool,
    rubric_tool,
)
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import Question
from pytest_legalbench.judging.judge import JUDGE_MAX_TOKENS, protocol_for, verdict_tool
from pytest_legalbench.llm.call_types import ToolSpec
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.prompts import (
    answer_system,
    answer_user,
    judge_user,
    load_prompt,
    provisions_block,
)
from pytest_legalbench.llm.scan_prompt import (
    document_line,
    documents_system,
    documents_user,
    index_block,
    index_entry,
    scan_user,
    select_documents_tool,
    select_nodes_tool,
)
from pytest_legalbench.modes.base import ModeSettings, Provision
from pytest_legalbench.modes.inject_context import DoesNotFit, inject_context
from pytest_legalbench.modes.inject_scope import CORPUS, resolve_scope, set_name, set_of
from pytest_legalbench.modes.navigate import DOCUMENTS_STAGE, SCAN_MAX_TOKENS, SCAN_STAGE
from pytest_legalbench.modes.registry import BASELINE, ModeRegistry, default_registry
from pytest_legalbench.modes.traits import CallShape
from pytest_legalbench.modes.units import context_line
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.run.answering import ANSWER_MAX_TOKENS, answer_stage
from pytest_legalbench.tokens import CHARS_PER_TOKEN, estimate_tokens

#: The arm of the baseline's answers (every question's, shared by its items).
INJECT = BASELINE
#: The arm judge calls are charged to: the mode being judged against inject.
JUDGE_STAGES = ("judge.forward", "judge.reverse")
#: Chunks of the public fixed-chunk baseline (navembed:chunks), in tokens.
CHUNK_TOKENS = 512
#: The Critic's reports: a rubric line ("AFL 4/5, ...; mean 4.17, minimum 3"), the audit's
#: head ("7 of 8 claims SUPPORTED (88% verified)") and the flagged claims, taken as this
#: share of the audit's output.
_RUBRIC_LINE = 30
_AUDIT_HEAD = 20
_FLAGGED_SHARE = 0.1
#: Output tokens assumed per call, by the last part of the stage name, when no previous run
#: calibrates them: a cited answer of a few paragraphs, ten id pairs, a verdict with its
#: reason, a CREAC memo, a claim audit. Assumptions, printed with the plan.
ASSUMED_OUTPUT = {
    "answer": 300, "scan": 300, "scan_documents": 60, "titles": 200, "titles_documents": 60,
    "forward": 120, "reverse": 120, "turn": 150, "draft": 700, "audit": 900, "rubric": 250,
    "critic": 300, "research": 250, "write": 500, "plan": 300, "review": 300, "rewrite": 600,
    "correctness": 150, "equivalence": 80,
}


@dataclass(frozen=True)
class OutputLengths:
    """Output tokens per call of each stage: assumed, or measured on a previous run."""

    per_stage: Mapping[str, float] = field(default_factory=dict)
    """Mean output tokens of a call of the stage (a previous run's), by stage name."""
    calls_per_item: Mapping[str, float] = field(default_factory=dict)
    """Mean calls of a stage per item of its arm (what is read of them: navagent's turns,
    GANDR's rounds)."""
    source: str = "assumed"
    """Where the lengths come from: ``assumed`` or the run they were measured on."""

    def output(self, stage: str) -> float:
        """Expected output tokens of one call of ``stage``."""
        if stage in self.per_stage:
            return self.per_stage[stage]
        kind = stage.rpartition(".")[2].rstrip("0123456789")
        return float(ASSUMED_OUTPUT.get(kind, ASSUMED_OUTPUT["answer"]))

    @classmethod
    def calibrated(cls, calls: Iterable[tuple[str, Call]], source: str) -> OutputLengths:
        """The mean output per call of each stage of a previous run (its calls with the arm
        each served: ``cost_plan.measured_calls``), and how many calls each stage took per
        item of its arm."""
        outputs: dict[str, list[int]] = defaultdict(list)
        items: dict[str, set[str]] = defaultdict(set)
        counted: dict[str, list[str]] = defaultdict(list)
        for arm, call in calls:
            outputs[call.stage].append(call.usage.output_tokens)
            if call.question_id is not None:
                items[arm].add(call.question_id)
                counted[call.stage].append(arm)
        per_item = {stage: len(arms) / len(items[arms[0]]) for stage, arms in counted.items()
                    if len(set(arms)) == 1 and items[arms[0]]}
        return cls({stage: statistics.fmean(found) for stage, found in outputs.items()},
                   per_item, source)


@dataclass(frozen=True)
class PlannedCall:
    """One kind of call an item makes, ``count`` times (a mean, for counts a run decides)."""

    arm: str
    """The mode the call serves (``inject``, ``navindex``, a GANDR system, ...)."""
    stage: str
    model: str
    count: float
    cached: int
    """Tokens of the cache-marked prefix (tools and system up to the mark); 0 if none."""
    uncached: int
    """The other prompt tokens."""
    output: float
    output_max: int
    share: str | None = None
    """Calls with the same ``share`` send the same cached prefix: the first writes it, the
    others read it (within the cache's lifetime)."""
    uncached_max: int | None = None
    """The other prompt tokens when every output before this call was at its cap (a judge
    comparing two capped answers); None: as ``uncached``."""


@dataclass(frozen=True)
class PlanSelection:
    """What a run will do: its items, the corpus, and every setting that sizes a call."""

    questions: tuple[Question, ...]
    modes: tuple[str, ...]
    documents: tuple[Document, ...]
    indexes: tuple[DocumentIndex, ...]
    mode_settings: ModeSettings = field(default_factory=ModeSettings)
    answer_model: str = "claude-sonnet-4-6"
    judge_model: str = "claude-opus-4-7"
    judge: str = DEFAULT_JUDGE
    repeats: int = DEFAULT_REPEATS
    gandr: GandrSettings = field(default_factory=GandrSettings)
    answer_max_tokens: int = ANSWER_MAX_TOKENS
    items: tuple[tuple[str, str], ...] | None = None
    """``(question_id, mode)`` pairs to plan (a run's collected items); None: every question
    under every mode."""
    registry: ModeRegistry = field(default_factory=default_registry, compare=False)
    """Where each mode's traits and call shape are read from."""

    def planned_items(self) -> tuple[tuple[Question, str], ...]:
        """The items, as question and canonical mode."""
        by_id = {question.id: question for question in self.questions}
        if self.items is None:
            return tuple((q, mode) for q in self.questions for mode in self.modes)
        unknown = [qid for qid, _ in self.items if qid not in by_id]
        if unknown:
            raise ValueError(f"items name unknown questions: {', '.join(unknown[:5])}")
        return tuple((by_id[qid], mode) for qid, mode in self.items)


@dataclass(frozen=True)
class CorpusSizes:
    """The sizes of the corpus that the rules read, measured once."""

    leaf_tokens: float
    leaf_tag_chars: float
    unit_tokens: float
    scan_block_tokens: int
    entry_tokens: float
    document_lines: tuple[str, ...]

    @classmethod
    def measure(cls, indexes: Sequence[DocumentIndex]) -> CorpusSizes:
        """Measure ``indexes``: their leaf provisions, units and scan entries."""
        by_id = {node.node_id: node for index in indexes for node in index.nodes}
        titles = {index.doc_id: index.title for index in indexes}
        provisions = [node for node in by_id.values() if _is_provision(node)]
        leaves = [node for node in provisions if not node.children] or provisions
        units = [node for node in provisions if estimate_tokens(node.text) <= 1200] or leaves
        entries = [index_entry(index) for index in indexes]
        return cls(
            leaf_tokens=_mean(estimate_tokens(node.text) for node in leaves),
            leaf_tag_chars=_mean(_tag_chars(node, titles, by_id) for node in leaves),
            unit_tokens=_mean(estimate_tokens(node.text) for node in units),
            scan_block_tokens=estimate_tokens(index_block(entries)) if entries else 0,
            entry_tokens=_mean(estimate_tokens(entry) for entry in entries),
            document_lines=tuple(document_line(index) for index in indexes))


@dataclass(frozen=True)
class _InjectSize:
    """Inject's cached prefix for a question: its instructions and the documents it reads
    (tokens), and the name of that prefix (the corpus, or the question's transaction set)."""

    instructions: int
    documents: int
    share: str


def planned_calls(selection: PlanSelection, outputs: OutputLengths | None = None,
                  sizes: CorpusSizes | None = None) -> tuple[list[PlannedCall], list[str]]:
    """Every call the selection's items will make, and notes on what could not be planned."""
    outputs = outputs or OutputLengths()
    sizes = sizes or CorpusSizes.measure(selection.indexes)
    planner = _Planner(selection, outputs, sizes)
    return planner.calls(), planner.notes


class _Planner:
    def __init__(self, selection: PlanSelection, outputs: OutputLengths,
                 sizes: CorpusSizes) -> None:
        self.s = selection
        self.settings = selection.mode_settings
        self.outputs = outputs
        self.sizes = sizes
        self.notes: list[str] = []
        self._passage_index: Any = None
        # Inject reads what the run's scope gives it: the corpus, or each question's
        # transaction set (``modes.inject_scope``), resolved by the run's own rule.
        self.scope = resolve_scope(self.settings.inject_scope, selection.documents,
                                   self.settings.context_window)
        self._contexts: dict[tuple[str, ...], _InjectSize | str] = {}
        self._refused: dict[str, set[str]] = defaultdict(set)
        if self.scope.scope != CORPUS:
            self.notes.append(self.scope.reason)

    def calls(self) -> list[PlannedCall]:
        found: list[PlannedCall] = []
        injected: set[str] = set()
        for question, mode in self.s.planned_items():
            if is_system(mode):
                found.extend(self._gandr(question, mode))
                continue
            mode = self.s.registry.resolve(mode)
            inject = self._inject_size(question)
            if inject is None:
                # The run's item asks inject first and stops there: no call at all.
                continue
            if question.id not in injected:
                injected.add(question.id)
                found.append(self._inject(question, inject))
            if self.s.registry.traits(mode).baseline:
                continue
            found.extend(self._mode(question, mode))
            found.extend(self._judge(question, mode))
        self.notes.extend(f"inject cannot run for {len(ids)} question(s) ({reason}): their "
                          f"items make no call" for reason, ids in self._refused.items())
        return found

    # ---- the QA arms ----------------------------------------------------------------------

    def _inject_size(self, question: Question) -> _InjectSize | None:
        """What inject's answer to ``question`` reads (the corpus, or the question's set),
        sized; None when the run's inject cannot answer it (the reason kept for the notes)."""
        documents = self.s.documents
        share = f"{INJECT}-corpus"
        if self.scope.scope != CORPUS:
            try:
                documents = set_of(question.documents, self.s.documents)
            except ValueError as error:
                self._refused[str(error)].add(question.id)
                return None
            if not documents:
                self._refused["the question names no document"].add(question.id)
                return None
            share = f"{INJECT}-set-{set_name(question.documents, self.s.documents)}"
        key = tuple(document.doc_id for document in documents)
        if key not in self._contexts:
            try:
                context = inject_context(documents, self.settings.context_window)
            except DoesNotFit as error:
                self._contexts[key] = str(error)
            else:
                self._contexts[key] = _InjectSize(estimate_tokens(context.instructions),
                                                  context.corpus_tokens, share)
        found = self._contexts[key]
        if isinstance(found, str):
            self._refused[found].add(question.id)
            return None
        return found

    def _inject(self, question: Question, inject: _InjectSize) -> PlannedCall:
        stage = answer_stage(INJECT)
        return PlannedCall(INJECT, stage, self.s.answer_model, 1,
                           cached=inject.instructions + inject.documents,
                           uncached=estimate_tokens(answer_user(question.question)),
                           output=self.outputs.output(stage),
                           output_max=self.s.answer_max_tokens, share=inject.share)

    def _mode(self, question: Question, mode: str) -> list[PlannedCall]:
        if self.s.registry.traits(mode).shown == "answer":
            return self._conversation(question, mode)
        shape = self.s.registry.shape(mode)
        calls: list[PlannedCall] = []
        if shape.before_answer == "index_scan":
            calls.extend(self._scan(question, mode))
        elif shape.before_answer == "titles_pick":
            calls.append(self._titles(question, mode))
        payload, provisions = self._payload(shape)
        stage = answer_stage(mode)
        calls.append(PlannedCall(mode, stage, self.s.answer_model, 1, cached=0,
                                 uncached=self._answer_input(question, payload, provisions),
                                 output=self.outputs.output(stage),
                                 output_max=self.s.answer_max_tokens))
        return calls

    def _payload(self, shape: CallShape) -> tuple[float, float]:
        """Payload tokens and how many provisions carry them."""
        budget = float(self.settings.payload_budget_tokens)
        k = self.settings.k
        if shape.payload == "chunks":
            chunks = min(budget, k * CHUNK_TOKENS)
            return chunks, chunks / CHUNK_TOKENS
        if shape.payload == "units":
            units = min(budget, k * self.sizes.unit_tokens)
            return units, units / self.sizes.unit_tokens
        return budget, budget / self.sizes.leaf_tokens

    def _answer_input(self, question: Question, payload: float, provisions: float) -> int:
        empty = len(answer_user(question.question, provisions_block([])))
        chars = empty + payload * CHARS_PER_TOKEN + provisions * self.sizes.leaf_tag_chars
        return estimate_tokens(answer_system()) + math.ceil(chars / CHARS_PER_TOKEN)

    def _scan(self, question: Question, mode: str) -> list[PlannedCall]:
        cap, model = self.settings.node_cap, self.settings.scan_model
        instructions = load_prompt("scan_system").render(max_nodes=str(cap))
        prefix = _tool_tokens(select_nodes_tool(cap)) + estimate_tokens(instructions)
        user = estimate_tokens(scan_user(question.question, cap))
        output = self.outputs.output(SCAN_STAGE)
        if self.sizes.scan_block_tokens <= self.settings.scan_budget_tokens:
            return [PlannedCall(mode, SCAN_STAGE, model, 1,
                                cached=prefix + self.sizes.scan_block_tokens, uncached=user,
                                output=output, output_max=SCAN_MAX_TOKENS, share="scan-index")]
        most = self.settings.max_scan_documents
        picked = min(most, len(self.sizes.document_lines)) * self.sizes.entry_tokens
        pick = PlannedCall(
            mode, DOCUMENTS_STAGE, model, 1, cached=0,
            uncached=(_tool_tokens(select_documents_tool(most))
                      + estimate_tokens(documents_system(most))
                      + estimate_tokens(documents_user(question.question,
                                                       self.sizes.document_lines, most))),
            output=self.outputs.output(DOCUMENTS_STAGE), output_max=SCAN_MAX_TOKENS)
        # Each question scans the documents it picked: its block is written, seldom read.
        scan = PlannedCall(mode, SCAN_STAGE, model, 1, cached=prefix + round(picked),
                           uncached=user, output=output, output_max=SCAN_MAX_TOKENS,
                           share=f"scan-{question.id}")
        return [pick, scan]

    def _titles(self, question: Question, mode: str) -> PlannedCall:
        from pytest_legalbench.modes.titles import TITLES_STAGE, TITLES_SYSTEM, titles_tool

        k = self.settings.k
        listing = sum(len(line) + 1 for line in self._title_lines())
        user = math.ceil((listing + len(question.question) + 80) / CHARS_PER_TOKEN)
        return PlannedCall(mode, TITLES_STAGE, self.settings.titles_model, 1, cached=0,
                           uncached=(_tool_tokens(titles_tool(k)) + estimate_tokens(TITLES_SYSTEM)
                                     + user),
                           output=self.outputs.output(TITLES_STAGE), output_max=1024)

    def _title_lines(self) -> list[str]:
        return [f"{node.node_id} | {node.doc_id} | {node.clause_reference} | {node.title}"
                for index in self.s.indexes for node in index.nodes if _is_provision(node)]

    def _conversation(self, question: Question, mode: str) -> list[PlannedCall]:
        """A mode that answers as it navigates: navigation turns up to the budgets (its
        ``<family>.turnN`` stages), then the answering turn over what was read."""
        turns = self.settings.agent_turns
        answer_at = answer_stage(mode)
        prefix = f"{answer_at.rpartition('.')[0]}.turn"
        per_item = {stage: count for stage, count in self.outputs.calls_per_item.items()
                    if stage.startswith(prefix)}
        navigation = self.settings.agent_tokens
        found: list[PlannedCall] = []
        counts = per_item or {f"{prefix}{n}": 1.0 for n in range(1, turns + 1)}
        total = sum(counts.values()) or 1.0
        for stage, count in counts.items():
            found.append(PlannedCall(mode, stage, self.s.answer_model, count, cached=0,
                                     uncached=round(navigation / total),
                                     output=self.outputs.output(stage), output_max=1024))
        answer = self._answer_input(question, self.settings.payload_budget_tokens,
                                    self.settings.payload_budget_tokens / self.sizes.leaf_tokens)
        found.append(PlannedCall(mode, answer_at, self.s.answer_model, 1,
                                 cached=0, uncached=answer,
                                 output=self.outputs.output(answer_at),
                                 output_max=self.s.answer_max_tokens))
        return found

    def _judge(self, question: Question, mode: str) -> list[PlannedCall]:
        protocol = protocol_for(self.s.judge, question.reference)
        if protocol == "keyfacts":
            return []
        system = load_prompt({"forced": "judge_forced_system",
                              "preference": "judge_preference_system"}.get(protocol,
                                                                          "judge_system"))
        reference = None if protocol == "preference" else question.reference
        fixed = (_tool_tokens(verdict_tool(protocol == "forced"))
                 + estimate_tokens(system.render()))
        empty = len(judge_user(question.question, "", "", reference))
        answers = (self.outputs.output(answer_stage(INJECT))
                   + self.outputs.output(answer_stage(mode)))
        user = math.ceil((empty + answers * CHARS_PER_TOKEN) / CHARS_PER_TOKEN)
        user_max = math.ceil((empty + 2 * self.s.answer_max_tokens * CHARS_PER_TOKEN)
                             / CHARS_PER_TOKEN)
        return [PlannedCall(mode, stage, self.s.judge_model, 1, cached=0, uncached=fixed + user,
                            output=self.outputs.output(stage), output_max=JUDGE_MAX_TOKENS,
                            uncached_max=fixed + user_max)
                for stage in JUDGE_STAGES]

    # ---- GANDR ----------------------------------------------------------------------------

    def _gandr(self, question: Question, system: str) -> list[PlannedCall]:
        """Every call of one GANDR item: its system's steps for each repeat (GANDR itself:
        one round, unless a previous run says how many calls each step took per item), a
        correctness grade per repeat and an equivalence judgement per pair of repeats."""
        g = self.s.gandr
        baseline = baseline_of(system)
        carried = {"context": self._passages_tokens(question.question, baseline == "b3"),
                   "question": float(estimate_tokens(question.question)),
                   "draft": self.outputs.output(f"{GANDR}.draft"),
                   # The Critic reads one-line summaries of the audit and the rubric: a line
                   # of scores, the share verified, and the claims that are not verified with
                   # their reasons (a tenth of the audit's output; decided on the dev split).
                   "reports": (_RUBRIC_LINE + _AUDIT_HEAD
                               + _FLAGGED_SHARE * self.outputs.output(f"{GANDR}.audit"))}
        found: list[PlannedCall] = []
        written = 0.0  # what the repeat's earlier steps wrote (b4's findings)
        said = 0.0  # the turns of a shared conversation so far (b5's)
        steps = _steps(baseline, g)
        for step, system_text, template, tool, sees in steps:
            stage = f"{baseline or GANDR}.{step}"
            count = self.outputs.calls_per_item.get(stage, float(self.s.repeats))
            own = _template_tokens(template)
            tokens = (estimate_tokens(system_text) + own
                      + (_tool_tokens(tool) if tool is not None else 0)
                      + sum(carried[part] for part in sees if part in carried)
                      + (written if "earlier" in sees else 0.0)
                      + (said if "conversation" in sees else 0.0))
            found.append(PlannedCall(
                system, stage, self.s.answer_model, count, cached=0, uncached=round(tokens),
                output=self.outputs.output(stage),
                output_max=g.tool_max_tokens if tool is not None else g.max_tokens))
            written += self.outputs.output(stage)
            said += own + self.outputs.output(stage) + (
                carried["context"] + carried["question"] if "context" in sees else 0.0)
        # The answer graded: GANDR's committed draft, a baseline's last step.
        final = "draft" if baseline is None else steps[-1][0]
        answer = self.outputs.output(f"{baseline or GANDR}.{final}")
        asked = carried["question"]
        if question.reference is not None:
            found.append(PlannedCall(
                system, "judge.correctness", self.s.judge_model, self.s.repeats, cached=0,
                uncached=round(estimate_tokens(prompting.correctness_system("open"))
                               + _tool_tokens(correctness_tool((1, 2, 3, 4, 5)))
                               + _template_tokens("gandr_correctness_user") + asked
                               + estimate_tokens(question.reference) + answer),
                output=self.outputs.output("judge.correctness"), output_max=g.judge_max_tokens))
        pairs = self.s.repeats * (self.s.repeats - 1) // 2
        if pairs:
            found.append(PlannedCall(
                system, "judge.equivalence", self.s.judge_model, pairs, cached=0,
                uncached=round(_template_tokens("gandr_equivalence_system")
                               + _tool_tokens(equivalence_tool())
                               + _template_tokens("gandr_equivalence_user") + asked
                               + 2 * answer),
                output=self.outputs.output("judge.equivalence"), output_max=g.judge_max_tokens))
        return found

    def _passages_tokens(self, question: str, reranked: bool) -> float:
        """Tokens of the passages a GANDR system answers from: BM25's top k, the same
        model-free retrieval the run makes; for B3, whose cross-encoder keeps some of a larger
        pool, the pool's mean passage times the number kept."""
        from pytest_legalbench.gandr.passages import PassageIndex, context_block, node_passages

        g = self.s.gandr
        if self._passage_index is None:
            self._passage_index = PassageIndex(node_passages(self.s.indexes, g.passage_chars))
        if not reranked:
            shown = context_block(self._passage_index.top(question, g.top_k))
            return len(shown) / CHARS_PER_TOKEN
        pool = self._passage_index.top(question, g.b3_pool)
        return (len(context_block(pool)) / CHARS_PER_TOKEN / max(1, len(pool))
                * min(g.b3_keep, len(pool)))


_Step = tuple[str, str, str, "ToolSpec | None", frozenset[str]]


def _steps(baseline: str | None, g: GandrSettings) -> list[_Step]:
    """Each call of one repeat of a system: step, system text, user template, forced tool,
    and what the user turn carries besides its template."""
    context, draft = frozenset({"context", "question"}), frozenset({"context", "draft"})
    if baseline is None:
        return [("draft", prompting.drafter_system(), "gandr_drafter_user", None, context),
                ("audit", load_prompt("gandr_audit_system").render().strip(), "gandr_audit_user",
                 claim_audit_tool(), draft),
                ("rubric", load_prompt("gandr_rubric_system").render().strip(),
                 "gandr_rubric_user", rubric_tool(), frozenset({"draft"})),
                ("critic", prompting.critic_system(g), "gandr_critic_user", critic_tool(),
                 frozenset({"context", "question", "draft", "reports"}))]
    if baseline in ("b1", "b3"):
        name = "gandr_analyst_system" if baseline == "b1" else "gandr_strict_analyst_system"
        return [("answer", prompting.plain_system(name), "gandr_answer_user", None, context)]
    if baseline == "b2":
        return [("answer", prompting.drafter_system(self_check=True), "gandr_answer_user", None,
                 context)]
    if baseline == "b4":
        return [("research", load_prompt("gandr_researcher_system").render().strip(),
                 "gandr_answer_user", None, context),
                ("write", prompting.plain_system("gandr_writer_system"), "gandr_writer_user",
                 None, frozenset({"context", "question", "earlier"}))]
    staged = prompting.plain_system("gandr_staged_system")
    # B5's later steps see the whole conversation: every earlier turn, the first with the
    # question and the passages.
    later = frozenset({"conversation"})
    return [("plan", staged, "gandr_staged_plan", None, context),
            ("draft", staged, "gandr_staged_draft", None, later),
            ("review", staged, "gandr_staged_review", None, later),
            ("rewrite", staged, "gandr_staged_rewrite", None, later)]


# ---- measuring ----------------------------------------------------------------------------


def _is_provision(node: Node) -> bool:
    """A node a mode may return: not the document itself, nor contents, nor a signature."""
    return (node.kind not in ("document", "toc", "toc_entry", "signature")
            and not node.flags.is_toc_entry)


def _tag_chars(node: Node, titles: Mapping[str, str], by_id: Mapping[str, Node]) -> int:
    """Characters a provision's tag adds around its text in an answering prompt."""
    provision = Provision.from_node(node, context_line(node, titles.get(node.doc_id, ""), by_id))
    one = provisions_block([(provision.doc_id, provision.node_id, provision.clause,
                             provision.path, "")])
    return len(one) - len(provisions_block([])) + len("\n\n")


def _tool_tokens(tool: ToolSpec) -> int:
    """A tool definition's tokens, counted as its JSON (the reference backend's count)."""
    shown = {"name": tool.name, "description": tool.description,
             "input_schema": dict(tool.input_schema)}
    return estimate_tokens(json.dumps(shown, sort_keys=True))


def _template_tokens(name: str) -> int:
    """A prompt template's own tokens, every placeholder left empty."""
    prompt = load_prompt(name)
    return estimate_tokens(prompt.render(**dict.fromkeys(prompt.placeholders, "")))


def _mean(values: Iterable[float]) -> float:
    found = list(values)
    return statistics.fmean(found) if found else 1.0
