"""GANDR's roles as model calls: the Drafter, the claim audit, the rubric and the Critic.

The orchestrator sees only the ``Roles`` protocol, so its commit rule can be tested with a
scripted stand-in. Each role here is one call in a context of its own: the Critic is shown
the draft and the reports, never the Drafter's prompt or output beyond the draft itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pytest_legalbench.gandr import prompting
from pytest_legalbench.gandr.creac import ProtocolReport
from pytest_legalbench.gandr.passages import Passage, context_block
from pytest_legalbench.gandr.reports import ClaimAudit, CriticVerdict, RubricScores
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.gandr.tool_specs import claim_audit_tool, critic_tool, rubric_tool
from pytest_legalbench.llm.call_types import Sampling, SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.prompts import load_prompt


class Roles(Protocol):
    """The four calls a GANDR round makes."""

    def draft(self, question: str, passages: Sequence[Passage], directives: Sequence[str],
              seed: int | None) -> str:
        """A CREAC memo for ``question`` (with the last round's directives, if any)."""
        ...

    def audit(self, passages: Sequence[Passage], draft: str) -> ClaimAudit | None:
        """The claim-by-claim audit of ``draft``; None when the output never conformed."""
        ...

    def rubric(self, answer: str) -> RubricScores | None:
        """The six rubric scores of ``answer``; None when the output never conformed."""
        ...

    def critic(self, question: str, passages: Sequence[Passage], draft: str,
               protocol: ProtocolReport, audit: ClaimAudit | None,
               rubric: RubricScores | None, seed: int | None) -> CriticVerdict | None:
        """PASS or REWRITE with directives; None when the output never conformed."""
        ...


class ModelRoles:
    """The roles played by one model through one client."""

    def __init__(self, client: ModelClient, model: str, settings: GandrSettings, *,
                 question_id: str | None = None, stage: str = "gandr",
                 self_check: bool = False) -> None:
        self.client = client
        self.model = model
        self.settings = settings
        self.question_id = question_id
        self.stage = stage
        self.self_check = self_check

    def draft(self, question: str, passages: Sequence[Passage], directives: Sequence[str],
              seed: int | None) -> str:
        """One Drafter call at the generator temperature."""
        completion = self.client.complete(
            stage=f"{self.stage}.draft", model=self.model, question_id=self.question_id,
            max_tokens=self.settings.max_tokens,
            system=[SystemBlock(prompting.drafter_system(self.self_check))],
            messages=[{"role": "user",
                       "content": prompting.drafter_user(question, passages, directives)}],
            sampling=Sampling(self.settings.generator_temperature, seed))
        return completion.text

    def audit(self, passages: Sequence[Passage], draft: str) -> ClaimAudit | None:
        """One audit call at the tool temperature."""
        result = self.client.structured(
            stage=f"{self.stage}.audit", model=self.model, question_id=self.question_id,
            max_tokens=self.settings.tool_max_tokens, tool=claim_audit_tool(),
            system=[SystemBlock(load_prompt("gandr_audit_system").render().strip())],
            messages=[{"role": "user", "content": load_prompt("gandr_audit_user").render(
                context=context_block(passages), draft=draft.strip())}],
            sampling=Sampling(self.settings.tool_temperature))
        return None if result.data is None else ClaimAudit.from_tool(result.data)

    def rubric(self, answer: str) -> RubricScores | None:
        """One rubric call at the tool temperature."""
        result = self.client.structured(
            stage=f"{self.stage}.rubric", model=self.model, question_id=self.question_id,
            max_tokens=self.settings.judge_max_tokens, tool=rubric_tool(),
            system=[SystemBlock(load_prompt("gandr_rubric_system").render().strip())],
            messages=[{"role": "user", "content": load_prompt("gandr_rubric_user").render(
                answer=answer.strip())}],
            sampling=Sampling(self.settings.tool_temperature))
        return None if result.data is None else RubricScores.from_tool(result.data)

    def critic(self, question: str, passages: Sequence[Passage], draft: str,
               protocol: ProtocolReport, audit: ClaimAudit | None,
               rubric: RubricScores | None, seed: int | None) -> CriticVerdict | None:
        """One Critic call at the Critic's temperature."""
        protocol_text = ("pass" if protocol.passed
                         else "fail: " + "; ".join(protocol.problems))
        result = self.client.structured(
            stage=f"{self.stage}.critic", model=self.model, question_id=self.question_id,
            max_tokens=self.settings.tool_max_tokens, tool=critic_tool(),
            system=[SystemBlock(prompting.critic_system(self.settings))],
            messages=[{"role": "user", "content": prompting.critic_user(
                question, passages, draft, protocol=protocol_text,
                audit=audit.summary() if audit else "unavailable (the audit output never "
                                                     "conformed)",
                rubric=rubric.summary() if rubric else "unavailable (the rubric output "
                                                       "never conformed)")}],
            sampling=Sampling(self.settings.critic_temperature, seed))
        return None if result.data is None else CriticVerdict.from_tool(result.data)
