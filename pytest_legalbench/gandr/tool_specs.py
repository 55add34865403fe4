"""The forced tools GANDR's structured calls report through: claim audit, rubric, Critic,
correctness and equivalence judges. Outputs that do not conform are "no result", never guessed.
"""

from __future__ import annotations

from pytest_legalbench.gandr.wire import (
    AUDIT_BLOCKS,
    AUDIT_LABELS,
    CLAIM_AUDIT_TOOL,
    CORRECTNESS_TOOL,
    CRITIC_TOOL,
    DECISIONS,
    EQUIVALENCE_TOOL,
    RUBRIC_DIMENSIONS,
    RUBRIC_TOOL,
)
from pytest_legalbench.llm.call_types import ToolSpec

_SCORE = {"type": "integer", "enum": [1, 2, 3, 4, 5]}


def claim_audit_tool() -> ToolSpec:
    """Each audited claim with its cited id, supporting span and label."""
    claim = {
        "type": "object",
        "properties": {
            "claim_id": {"type": "integer"},
            "block": {"type": "string", "enum": list(AUDIT_BLOCKS)},
            "claim": {"type": "string"},
            "cited_id": {"type": "string"},
            "supporting_span": {"type": "string"},
            "label": {"type": "string", "enum": list(AUDIT_LABELS)},
            "reason": {"type": "string"},
        },
        "required": ["claim_id", "block", "claim", "cited_id", "supporting_span", "label"],
    }
    return ToolSpec(CLAIM_AUDIT_TOOL, "Record the audited claims of the memo, in order.",
                    {"type": "object", "properties": {"claims": {"type": "array",
                                                                 "items": claim}},
                     "required": ["claims"]})


def rubric_tool() -> ToolSpec:
    """The six rubric scores, 1 to 5 each."""
    properties: dict[str, object] = {name: dict(_SCORE) for name in RUBRIC_DIMENSIONS}
    properties["notes"] = {"type": "string"}
    return ToolSpec(RUBRIC_TOOL, "Record the six rubric scores of the answer.",
                    {"type": "object", "properties": properties,
                     "required": list(RUBRIC_DIMENSIONS)})


def critic_tool() -> ToolSpec:
    """PASS or REWRITE, the directives and a rationale."""
    return ToolSpec(CRITIC_TOOL, "Record the review decision on the memo.", {
        "type": "object",
        "properties": {"decision": {"type": "string", "enum": list(DECISIONS)},
                       "directives": {"type": "array", "items": {"type": "string"}},
                       "rationale": {"type": "string"}},
        "required": ["decision", "directives", "rationale"]})


def correctness_tool(allowed: tuple[int, ...]) -> ToolSpec:
    """A 1-5 score limited to ``allowed``, the answer's figure (numeric references) and why."""
    return ToolSpec(CORRECTNESS_TOOL, "Record the correctness grade of the answer.", {
        "type": "object",
        "properties": {"score": {"type": "integer", "enum": list(allowed)},
                       "candidate_figure": {"type": "string"},
                       "rationale": {"type": "string"}},
        "required": ["score", "rationale"]})


def equivalence_tool() -> ToolSpec:
    """Whether two answers reach the same conclusion, and why."""
    return ToolSpec(EQUIVALENCE_TOOL, "Record whether the two answers reach the same "
                    "conclusion.", {
                        "type": "object",
                        "properties": {"equivalent": {"type": "boolean"},
                                       "rationale": {"type": "string"}},
                        "required": ["equivalent", "rationale"]})
