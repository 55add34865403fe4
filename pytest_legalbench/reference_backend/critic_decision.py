"""The Critic played by rule: PASS exactly when the three check reports meet the PASS policy
its system prompt states, else REWRITE with one directive per failure.

It reads the user turn's CHECK REPORTS (the structure line, the audit's "N of M claims
SUPPORTED" with its flagged claims, the rubric's scores with "mean X, minimum Y") and the
policy's three numbers from the system prompt. A report that says it is unavailable is a
failure: nothing unchecked passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_legalbench.gandr.wire import AUDIT_LABELS, CRITIC_TOOL, RUBRIC_DIMENSIONS, SUPPORTED
from pytest_legalbench.reference_backend.identity import with_note
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

_REPORTS_HEADING = "CHECK REPORTS:"
_REPORT = re.compile(r"^- (?P<name>structure|citation audit|writing rubric)\b[^:\n]*:[ \t]*",
                     re.MULTILINE)
_VERIFIED_BAR = re.compile(r"at least\s+(?P<value>\d+(?:\.\d+)?)\s*%")
_MEAN_BAR = re.compile(r"average at least\s+(?P<value>\d+(?:\.\d+)?)")
_MIN_BAR = re.compile(r"none below\s+(?P<value>\d+(?:\.\d+)?)")
_SUPPORTED = re.compile(r"(?P<supported>\d+) of (?P<total>\d+) claims SUPPORTED")
_PERCENT = re.compile(r"(?P<value>\d+(?:\.\d+)?)% verified")
# The id may hold brackets ("doc:2.1(a)"), so it runs up to the ") LABEL" that closes it.
_FLAGS = [label for label in AUDIT_LABELS if label != SUPPORTED]
_FLAGGED = re.compile(r"claim (?P<number>\d+) \((?P<block>[A-Z]+), cites (?P<cited>.+?)\) "
                      rf"(?P<label>{'|'.join(_FLAGS)})\b")
_SCORE = re.compile(r"\b(?P<name>" + "|".join(RUBRIC_DIMENSIONS) + r") (?P<score>[1-5])/5")
_MEAN_MIN = re.compile(r"mean (?P<mean>\d+(?:\.\d+)?), minimum (?P<minimum>\d+)")

_FIXES = {
    "UNSUPPORTED": "back it with a passage that states it, or remove it",
    "PARTIAL": "narrow it to what the cited passage states",
    "MISCITED": "cite the passage that states it instead",
}
_ADVICE = {
    "AFL": "open with the answer in [CONCLUSION] and repeat it word for word in the closing "
           "[CONCLUSION]",
    "AC": "state the answer in one short, direct sentence without hedging words",
    "CI": "keep each [CONCLUSION] to the answer alone, with no citations or reasoning",
    "DTC": "write each defined term and clause reference in one form throughout",
    "CEA": "end every claim of [EXPLANATION] and [APPLICATION] with the {cite: ID} that "
           "supports it",
    "FS": "name the specific clauses, figures and dates the answer rests on",
}

_AUDIT_UNAVAILABLE = ("The citation audit was unavailable: end every claim of [EXPLANATION] "
                      "and [APPLICATION] with its {cite: ID} so that it can be checked.")
_TOO_FEW_SUPPORTED = ("[EXPLANATION] and [APPLICATION] hold too few supported claims: state "
                      "each point with the {cite: ID} of the passage that states it.")
_RUBRIC_UNAVAILABLE = (f"The writing rubric was unavailable: check {', '.join(RUBRIC_DIMENSIONS)}"
                       " against the memo before sending it back.")


@dataclass(frozen=True)
class PassPolicy:
    """The PASS policy's numbers: share SUPPORTED (0-1), rubric mean and minimum bars."""

    verified: float
    mean: float
    minimum: float


def pass_policy(system: str) -> PassPolicy:
    """The policy stated in the Critic's system prompt; an error names a missing number."""
    found = {}
    for name, pattern in (("verified", _VERIFIED_BAR), ("mean", _MEAN_BAR),
                          ("minimum", _MIN_BAR)):
        match = pattern.search(system)
        if match is None:
            raise invalid(f"{CRITIC_TOOL}: the system prompt states no {name} bar of the PASS "
                          f"policy (expected text like {pattern.pattern!r})")
        found[name] = float(match.group("value"))
    return PassPolicy(found["verified"] / 100, found["mean"], found["minimum"])


def check_reports(user_text: str) -> dict[str, str]:
    """The three report texts of the user turn by name (an audit may run over lines)."""
    # Only after the heading: a memo quoted above it could hold a line that looks like one.
    user_text = user_text[user_text.rfind(_REPORTS_HEADING):] \
        if _REPORTS_HEADING in user_text else user_text
    starts = list(_REPORT.finditer(user_text))
    reports = {}
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(user_text)
        reports[match.group("name")] = user_text[match.end():end].strip()
    missing = [n for n in ("structure", "citation audit", "writing rubric") if n not in reports]
    if missing:
        raise invalid(f"{CRITIC_TOOL}: the last user turn lacks the check report line(s) "
                      f"{', '.join(missing)} (expected '- {missing[0]} ...: ...')")
    return reports


def _structure(report: str) -> tuple[list[str], str]:
    if report.lower() == "pass":
        return [], "structure passes"
    problems = report.partition(":")[2].split(";") if ":" in report else [report]
    return ([f"Fix the structure: {p.strip()}." for p in problems if p.strip()]
            or ["Fix the structure: the memo needs five blocks in CREAC order."],
            "structure fails")


def _audit(report: str, bar: float) -> tuple[list[str], str]:
    counted = _SUPPORTED.search(report)
    percent = _PERCENT.search(report)
    if counted:
        share = int(counted.group("supported")) / max(1, int(counted.group("total")))
    elif percent:
        share = float(percent.group("value")) / 100
    else:
        return [_AUDIT_UNAVAILABLE], "audit unavailable"
    summary = f"{share:.0%} of audited claims SUPPORTED (bar {bar:.0%})"
    if share >= bar:
        return [], summary
    directives = [f"Claim {m.group('number')} in [{m.group('block')}] (cites "
                  f"{m.group('cited')}) is {m.group('label')}: {_FIXES[m.group('label')]}."
                  for m in _FLAGGED.finditer(report)]
    return directives or [_TOO_FEW_SUPPORTED], summary


def _rubric(report: str, policy: PassPolicy) -> tuple[list[str], str]:
    totals = _MEAN_MIN.search(report)
    scores = {m.group("name"): int(m.group("score")) for m in _SCORE.finditer(report)}
    if totals is None or not scores:
        return [_RUBRIC_UNAVAILABLE], "rubric unavailable"
    mean, minimum = float(totals.group("mean")), int(totals.group("minimum"))
    summary = (f"rubric mean {mean:g} (bar {policy.mean:g}), minimum {minimum} "
               f"(bar {policy.minimum:g})")
    # Below the floor always; below the mean bar too when the mean misses it.
    ceiling = policy.mean if mean < policy.mean else policy.minimum
    directives = [f"{name} scored {score}/5: {_ADVICE[name]}."
                  for name, score in scores.items() if score < ceiling or score < policy.minimum]
    return directives, summary


def critic_input(request: MessagesRequest) -> dict[str, object]:
    """The ``record_critic_decision`` input: PASS iff every check meets the policy."""
    policy = pass_policy(request.system)
    reports = check_reports(request.last_user_text)
    directives: list[str] = []
    summaries = []
    for found, summary in (_structure(reports["structure"]),
                           _audit(reports["citation audit"], policy.verified),
                           _rubric(reports["writing rubric"], policy)):
        directives.extend(found)
        summaries.append(summary)
    verdict = ("every check is clean" if not directives
               else f"{len(directives)} point(s) to fix")
    return {"decision": "REWRITE" if directives else "PASS", "directives": directives,
            "rationale": with_note(f"{'; '.join(summaries)}: {verdict}.")}
