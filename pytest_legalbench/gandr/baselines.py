"""The five baselines GANDR is compared with, each a fixed chain of generation calls.

B1 answers in one call under the citation rules; B2 is the Drafter's prompt with a six-point
self-check and no Critic (the head-to-head comparator); B3 is B1's kind of call over passages
re-ranked by a cross-encoder; B4 chains a researcher and a writer; B5 plans, drafts, reviews
and rewrites in one shared conversation. None has a commit rule, so ``passed`` is None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pytest_legalbench.gandr import prompting
from pytest_legalbench.gandr.orchestrator import Outcome
from pytest_legalbench.gandr.passages import Passage, context_block
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.llm.call_types import Sampling, SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.prompts import load_prompt

#: The baselines by system name, with what each one is.
BASELINES: Mapping[str, str] = {
    "b1": "one call with the citation rules",
    "b2": "the Drafter's prompt with a self-check, one call, no Critic",
    "b3": "BM25 top 20 re-ranked by a cross-encoder to 5, one call",
    "b4": "researcher then writer, two calls",
    "b5": "plan, draft, review, rewrite in one shared context",
}


class Generator:
    """Text calls of one baseline run: the model, the sampling and the item they belong to."""

    def __init__(self, client: ModelClient, model: str, settings: GandrSettings, *,
                 seed: int | None, question_id: str | None, stage: str) -> None:
        self.client, self.model, self.settings = client, model, settings
        self.seed, self.question_id, self.stage = seed, question_id, stage
        self.trace: list[dict[str, object]] = []

    def __call__(self, step: str, system: str, messages: Sequence[Mapping[str, object]]) -> str:
        """One call; its output enters the trace under ``step``."""
        completion = self.client.complete(
            stage=f"{self.stage}.{step}", model=self.model, question_id=self.question_id,
            max_tokens=self.settings.max_tokens, system=[SystemBlock(system)],
            messages=messages, sampling=Sampling(self.settings.generator_temperature, self.seed))
        self.trace.append({"step": step, "output": completion.text})
        return completion.text

    def outcome(self, answer: str) -> Outcome:
        """The baseline's answer with the calls that led to it."""
        return Outcome(answer, None, 1, tuple(self.trace))


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


def b1(generate: Generator, question: str, passages: Sequence[Passage]) -> Outcome:
    """One call: the analyst's instructions with the citation rules."""
    return generate.outcome(generate("answer", prompting.plain_system("gandr_analyst_system"),
                                     [_user(prompting.answer_user(question, passages))]))


def b2(generate: Generator, question: str, passages: Sequence[Passage]) -> Outcome:
    """One call: the Drafter's instructions plus the self-check, B1's user turn."""
    return generate.outcome(generate("answer", prompting.drafter_system(self_check=True),
                                     [_user(prompting.answer_user(question, passages))]))


def b3(generate: Generator, question: str, passages: Sequence[Passage]) -> Outcome:
    """One call over the re-ranked passages, using them only."""
    return generate.outcome(generate(
        "answer", prompting.plain_system("gandr_strict_analyst_system"),
        [_user(prompting.answer_user(question, passages))]))


def b4(generate: Generator, question: str, passages: Sequence[Passage]) -> Outcome:
    """Two calls: the researcher lists controlling ids, the writer answers from the list."""
    findings = generate("research", load_prompt("gandr_researcher_system").render().strip(),
                        [_user(prompting.answer_user(question, passages))])
    writer_turn = load_prompt("gandr_writer_user").render(
        question=question.strip(), findings=findings.strip(), context=context_block(passages))
    return generate.outcome(generate("write", prompting.plain_system("gandr_writer_system"),
                                     [_user(writer_turn)]))


def b5(generate: Generator, question: str, passages: Sequence[Passage]) -> Outcome:
    """Four calls in one growing conversation: each step sees everything said before it."""
    system = prompting.plain_system("gandr_staged_system")
    steps = (("plan", load_prompt("gandr_staged_plan").render(
                  question=question.strip(), context=context_block(passages))),
             ("draft", load_prompt("gandr_staged_draft").render()),
             ("review", load_prompt("gandr_staged_review").render()),
             ("rewrite", load_prompt("gandr_staged_rewrite").render()))
    conversation: list[dict[str, object]] = []
    said = ""
    for step, instruction in steps:
        conversation.append(_user(instruction.strip()))
        said = generate(step, system, list(conversation))
        # The API refuses an empty assistant turn; an empty step still stays in the record.
        conversation.append({"role": "assistant", "content": said.strip() or "(no output)"})
    return generate.outcome(said)


RUNNERS: Mapping[str, Callable[[Generator, str, Sequence[Passage]], Outcome]] = {
    "b1": b1, "b2": b2, "b3": b3, "b4": b4, "b5": b5}
