"""What GANDR's model-run tools report: audited claims, rubric scores, the Critic's verdict.

Each is built from a forced tool's input with ``from_tool``; the input has already been
checked against the tool's schema, so only values the schema cannot express are checked here.
Each is written into the audit trace through ``files.record_json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pytest_legalbench.files.record_json import PAIRS_AS_OBJECT, Rounded, derived, from_builtins
from pytest_legalbench.gandr.wire import RUBRIC_DIMENSIONS
from pytest_legalbench.stats.agreement import AUDIT_LABELS


@dataclass(frozen=True)
class AuditedClaim:
    """One atomic claim of a memo, the id it cites, the span found for it, and its label."""

    claim_id: int
    block: str
    claim: str
    cited_id: str
    supporting_span: str
    label: str
    reason: str = ""


@derived(labels="label_counts", verified_share="verified_share")
@dataclass(frozen=True)
class ClaimAudit:
    """Every audited claim of one draft (written with the label counts and the share
    verified)."""

    claims: tuple[AuditedClaim, ...]

    @classmethod
    def from_tool(cls, data: Mapping[str, Any]) -> ClaimAudit:
        """The audit a conforming tool input reports."""
        return from_builtins(ClaimAudit, {"claims": data["claims"]}, what="claim audit")

    @property
    def label_counts(self) -> dict[str, int]:
        """How many claims carry each label (every label listed, zeros included)."""
        counts = Counter(claim.label for claim in self.claims)
        return {label: counts.get(label, 0) for label in AUDIT_LABELS}

    @property
    def verified_share(self) -> Annotated[float, Rounded(4)]:
        """The share of claims labelled SUPPORTED; 0.0 for a draft with no claims (written
        rounded to four places)."""
        if not self.claims:
            return 0.0
        return self.label_counts["SUPPORTED"] / len(self.claims)

    def summary(self) -> str:
        """One line for the Critic: the share verified and the claims that are not."""
        if not self.claims:
            return "no claims found in [EXPLANATION] or [APPLICATION]: 0% verified"
        # Reasons are folded onto one line: the report is one line of the Critic's prompt.
        flagged = [f"claim {c.claim_id} ({c.block}, cites {c.cited_id or 'nothing'}) "
                   f"{c.label}" + (f": {' '.join(c.reason.split())}" if c.reason.strip() else "")
                   for c in self.claims if c.label != "SUPPORTED"]
        head = (f"{self.label_counts['SUPPORTED']} of {len(self.claims)} claims SUPPORTED "
                f"({self.verified_share:.0%} verified)")
        return head + ("; " + "; ".join(flagged) if flagged else "")


@derived(mean="mean", minimum="minimum")
@dataclass(frozen=True)
class RubricScores:
    """The six rubric scores of one answer (written as ``{dimension: score}``, with their
    mean and minimum)."""

    scores: Annotated[tuple[tuple[str, int], ...], PAIRS_AS_OBJECT]

    @classmethod
    def from_tool(cls, data: Mapping[str, Any]) -> RubricScores:
        """The scores a conforming tool input reports, in the rubric's dimension order."""
        return cls(tuple((name, int(data[name])) for name in RUBRIC_DIMENSIONS))

    @property
    def mean(self) -> Annotated[float, Rounded(4)]:
        """The mean of the six scores (written rounded to four places)."""
        return sum(score for _, score in self.scores) / len(self.scores)

    @property
    def minimum(self) -> int:
        """The lowest of the six scores."""
        return min(score for _, score in self.scores)

    def summary(self) -> str:
        """One line for the Critic: every score, the mean and the minimum."""
        listed = ", ".join(f"{name} {score}/5" for name, score in self.scores)
        return f"{listed}; mean {self.mean:.2f}, minimum {self.minimum}"


@dataclass(frozen=True)
class CriticVerdict:
    """The Critic's decision, its directives and its rationale."""

    decision: str
    directives: tuple[str, ...]
    rationale: str

    @classmethod
    def from_tool(cls, data: Mapping[str, Any]) -> CriticVerdict:
        """The verdict a conforming tool input reports (blank directives dropped)."""
        directives = tuple(str(d).strip() for d in data["directives"] if str(d).strip())
        return cls(str(data["decision"]), directives, str(data["rationale"]))
