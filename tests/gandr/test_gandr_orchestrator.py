"""The GANDR loop's commit rule, round limit and trace, with scripted roles (no model)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from pytest_legalbench.gandr.creac import ProtocolReport
from pytest_legalbench.gandr.orchestrator import commits, run_gandr
from pytest_legalbench.gandr.passages import Passage
from pytest_legalbench.gandr.reports import AuditedClaim, ClaimAudit, CriticVerdict, RubricScores
from pytest_legalbench.gandr.settings import GandrSettings

PASSAGES = [Passage("deal:4.2", "deal", "4.2", "The Borrower shall pay interest monthly."),
            Passage("deal:7.1", "deal", "7.1", "Notices must be in writing.")]

GOOD = ("[CONCLUSION]\nInterest is paid monthly.\n[RULE]\nSection 4.2 {cite: deal:4.2}\n"
        "[EXPLANATION]\nThe Borrower pays interest each month {cite: deal:4.2}.\n"
        "[APPLICATION]\nSo the payment is monthly {cite: deal:4.2}.\n"
        "[CONCLUSION]\nInterest is paid monthly.")
NO_CLOSING = GOOD.rsplit("[CONCLUSION]", 1)[0]


def _audit(supported: int, total: int) -> ClaimAudit:
    return ClaimAudit(tuple(
        AuditedClaim(i + 1, "APPLICATION", f"claim {i + 1}", "deal:4.2", "",
                     "SUPPORTED" if i < supported else "UNSUPPORTED") for i in range(total)))


@dataclass
class ScriptedRoles:
    """Plays the four roles from scripts, one entry per round, and records what it was asked."""

    drafts: list[str]
    audits: list[ClaimAudit | None]
    verdict: CriticVerdict | None = field(
        default_factory=lambda: CriticVerdict("REWRITE", ("Claim 2 cites nothing.",), "weak"))
    directives_seen: list[tuple[str, ...]] = field(default_factory=list)
    critic_calls: int = 0

    def draft(self, question: str, passages: Sequence[Passage], directives: Sequence[str],
              seed: int | None) -> str:
        self.directives_seen.append(tuple(directives))
        return self.drafts[len(self.directives_seen) - 1]

    def audit(self, passages: Sequence[Passage], draft: str) -> ClaimAudit | None:
        return self.audits[len(self.directives_seen) - 1]

    def rubric(self, answer: str) -> RubricScores | None:
        return RubricScores((("AFL", 5), ("AC", 4), ("CI", 5), ("DTC", 4), ("CEA", 3),
                             ("FS", 4)))

    def critic(self, question: str, passages: Sequence[Passage], draft: str,
               protocol: ProtocolReport, audit: ClaimAudit | None,
               rubric: RubricScores | None, seed: int | None) -> CriticVerdict | None:
        self.critic_calls += 1
        return self.verdict


def test_round_one_commits_on_structure_even_when_the_critic_asks_for_a_rewrite() -> None:
    roles = ScriptedRoles([GOOD], [_audit(0, 3)])
    outcome = run_gandr(roles, "How often is interest paid?", PASSAGES, GandrSettings())
    assert (outcome.passed, outcome.rounds, outcome.answer) == (True, 1, GOOD)
    # The Critic still ran, and its REWRITE is kept as an audit of the committed draft.
    assert roles.critic_calls == 1
    assert outcome.trace[0]["critic"] == {"decision": "REWRITE",
                                          "directives": ["Claim 2 cites nothing."],
                                          "rationale": "weak"}
    assert outcome.trace[0]["committed"] is True
    assert outcome.trace[0]["grounding"]["grounded"] is True


def test_a_failed_structure_sends_the_directives_back_and_round_two_commits() -> None:
    roles = ScriptedRoles([NO_CLOSING, GOOD], [_audit(3, 3), _audit(1, 2)])
    outcome = run_gandr(roles, "q", PASSAGES, GandrSettings())
    assert (outcome.passed, outcome.rounds, outcome.answer) == (True, 2, GOOD)
    assert roles.directives_seen[0] == ()
    second = roles.directives_seen[1]
    assert second[-1] == "Claim 2 cites nothing."
    assert any(d.startswith("Structure:") and "[CONCLUSION]" in d for d in second)
    assert [entry["committed"] for entry in outcome.trace] == [False, True]


def test_on_the_rewrite_path_an_audit_under_the_threshold_does_not_commit() -> None:
    # Round 2 passes its structure but only 1 of 3 claims is supported (0.33 < 0.50).
    roles = ScriptedRoles([NO_CLOSING, GOOD, NO_CLOSING], [None, _audit(1, 3), _audit(3, 3)])
    outcome = run_gandr(roles, "q", PASSAGES, GandrSettings())
    assert (outcome.passed, outcome.rounds) == (False, 3)
    assert outcome.answer == NO_CLOSING  # the last draft, not the best one
    assert len(outcome.trace) == 3 and not any(e["committed"] for e in outcome.trace)
    assert outcome.trace[0]["audit"] is None


def test_the_round_limit_is_a_setting() -> None:
    roles = ScriptedRoles([NO_CLOSING] * 5, [_audit(1, 1)] * 5)
    outcome = run_gandr(roles, "q", PASSAGES, GandrSettings(max_rounds=2))
    assert (outcome.passed, outcome.rounds, len(roles.directives_seen)) == (False, 2, 2)


def test_without_a_critic_verdict_the_structure_problems_still_go_back() -> None:
    roles = ScriptedRoles([NO_CLOSING, GOOD], [_audit(1, 1), _audit(1, 1)], verdict=None)
    outcome = run_gandr(roles, "q", PASSAGES, GandrSettings())
    assert outcome.rounds == 2
    assert roles.directives_seen[1] and all(d.startswith("Structure:")
                                            for d in roles.directives_seen[1])
    assert outcome.trace[0]["critic"] is None


@pytest.mark.parametrize(("round_number", "passed", "audit", "expected"), [
    (1, True, None, True),
    (1, False, _audit(3, 3), False),
    (2, True, _audit(1, 2), True),      # exactly at the 0.50 threshold
    (2, True, _audit(2, 5), False),     # 0.40
    (3, True, None, False),
    (2, False, _audit(3, 3), False),
    (2, True, ClaimAudit(()), False),   # no claims: nothing verified
])
def test_commit_rule(round_number: int, passed: bool, audit: ClaimAudit | None,
                     expected: bool) -> None:
    protocol = ProtocolReport(passed, () if passed else ("x",), ())
    assert commits(round_number, protocol, audit, GandrSettings()) is expected


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="rewrite_threshold"):
        GandrSettings(rewrite_threshold=1.5)
    with pytest.raises(ValueError, match="b3_keep"):
        GandrSettings(b3_pool=4, b3_keep=5)
    with pytest.raises(ValueError, match="max_rounds"):
        GandrSettings(max_rounds=0)


def test_settings_take_name_value_overrides() -> None:
    from pytest_legalbench.gandr.settings import with_overrides

    changed = with_overrides(["max_rounds=2", "generator_temperature=0.2", " top_k = 10"])
    assert (changed.max_rounds, changed.generator_temperature, changed.top_k) == (2, 0.2, 10)
    assert with_overrides([]) == GandrSettings()
    with pytest.raises(ValueError, match=r"'rounds=2'.*max_rounds"):
        with_overrides(["rounds=2"])
    with pytest.raises(ValueError, match="'two' is not a whole number"):
        with_overrides(["max_rounds=two"])
    with pytest.raises(ValueError, match="critic_temperature must be between 0 and 1"):
        with_overrides(["critic_temperature=3"])
    with pytest.raises(ValueError, match="expected NAME=VALUE"):
        with_overrides(["max_rounds"])
