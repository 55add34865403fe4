"""The GANDR loop: draft, check, review, and commit or send back, for at most N rounds.

The commit rule reads the structure check, not the Critic: a round-1 draft whose five blocks
pass is committed, and the Critic's verdict on it is kept as an audit. A draft that fails goes
back to the Drafter with the Critic's directives (and the structure check's problems, so the
author always learns what failed). On the rewrite path a draft commits when its structure
passes and its audited claims reach ``rewrite_threshold`` SUPPORTED. When the rounds run out
the last draft is returned with ``passed=False``: never a best effort presented as a pass.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.gandr.citations import grounding
from pytest_legalbench.gandr.creac import ProtocolReport, protocol_check
from pytest_legalbench.gandr.passages import Passage
from pytest_legalbench.gandr.reports import ClaimAudit, CriticVerdict
from pytest_legalbench.gandr.roles import Roles
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.llm.pending_calls import both


@dataclass(frozen=True)
class Outcome:
    """The answer a system returns, whether its loop passed, and its audit trace."""

    answer: str
    passed: bool | None
    """None for systems without a commit rule (every baseline)."""
    rounds: int
    trace: tuple[dict[str, object], ...]


def commits(round_number: int, protocol: ProtocolReport, audit: ClaimAudit | None,
            settings: GandrSettings) -> bool:
    """The commit rule: round 1 commits on structure alone; later rounds also need the audit
    to reach the rewrite threshold (an audit that never conformed does not)."""
    if not protocol.passed:
        return False
    if round_number == 1:
        return True
    return audit is not None and audit.verified_share >= settings.rewrite_threshold


def run_gandr(roles: Roles, question: str, passages: Sequence[Passage],
              settings: GandrSettings, seed: int | None = None) -> Outcome:
    """Run the loop on one question; every round (draft, reports, verdict) enters the trace."""
    ids = [p.passage_id for p in passages]
    trace: list[dict[str, object]] = []
    directives: tuple[str, ...] = ()
    draft = ""
    for round_number in range(1, settings.max_rounds + 1):
        draft = roles.draft(question, passages, directives, seed)
        protocol = protocol_check(draft)
        # The audit and the rubric read only the draft: a batch run sends them together.
        audit, rubric = both(functools.partial(roles.audit, passages, draft),
                             functools.partial(roles.rubric, draft))
        verdict = roles.critic(question, passages, draft, protocol, audit, rubric, seed)
        committed = commits(round_number, protocol, audit, settings)
        trace.append({
            "round": round_number, "directives_in": list(directives), "draft": draft,
            "protocol": to_builtins(protocol), "grounding": to_builtins(grounding(draft, ids)),
            "audit": None if audit is None else to_builtins(audit),
            "rubric": None if rubric is None else to_builtins(rubric),
            "critic": None if verdict is None else to_builtins(verdict),
            "committed": committed})
        if committed:
            return Outcome(draft, True, round_number, tuple(trace))
        directives = _next_directives(protocol, verdict)
    return Outcome(draft, False, settings.max_rounds, tuple(trace))


def _next_directives(protocol: ProtocolReport,
                     verdict: CriticVerdict | None) -> tuple[str, ...]:
    found = [f"Structure: {problem}" for problem in protocol.problems]
    if verdict is not None:
        found.extend(verdict.directives)
    if not found:
        found.append("The claims of [EXPLANATION] and [APPLICATION] are not supported well "
                     "enough by the passages they cite: support or remove them.")
    return tuple(found)
