"""The atomic-claim audit played by rule: each claim of a memo's [EXPLANATION] and
[APPLICATION] blocks labelled by how many of its content terms the passage it cites holds.

A claim's terms are its stemmed content words once its markers are removed; a passage's are
those of its text and of its clause reference (the prompt shows both). The label follows the
audit prompt's definitions:

- SUPPORTED: the cited passage holds at least ``SUPPORTED_SHARE`` of the claim's terms;
- MISCITED: it does not, but another shown passage does;
- PARTIAL: no passage does, but the cited one holds at least ``PARTIAL_SHARE``;
- UNSUPPORTED: none of that, or the claim cites nothing (or states nothing checkable).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.gandr.wire import (
    AUDIT_BLOCKS,
    CLAIM_AUDIT_TOOL,
    MISCITED,
    PARTIAL,
    SUPPORTED,
    UNSUPPORTED,
)
from pytest_legalbench.reference_backend.gandr_prompt import ShownPassage, fenced, shown_passages
from pytest_legalbench.reference_backend.identity import with_note
from pytest_legalbench.reference_backend.lexical import content_terms, split_sentences
from pytest_legalbench.reference_backend.markers import (
    find_markers,
    without_corpus_prefix,
    without_markers,
)
from pytest_legalbench.reference_backend.memo_reading import claims, split_blocks
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

#: "(Nearly) all" of a claim: a quoted sentence scores 1.0, and one term in ten may be the
#: writer's own framing ("here", "accordingly") without the claim going beyond the passage.
SUPPORTED_SHARE = 0.9
#: "A good part": half the claim's terms come from the passage, the rest from elsewhere.
PARTIAL_SHARE = 0.5


@dataclass(frozen=True)
class ClaimLabel:
    """The audit of one claim: its label, the supporting sentence found, and why."""

    label: str
    supporting_span: str
    reason: str


def _terms(passage: ShownPassage) -> set[str]:
    return set(content_terms(f"{passage.clause} {passage.text}"))


def _share(wanted: set[str], passage: ShownPassage | None) -> float:
    return len(wanted & _terms(passage)) / len(wanted) if passage is not None else 0.0


def _span(wanted: set[str], passage: ShownPassage | None) -> str:
    """The passage sentence sharing most of ``wanted`` (the earlier on ties); "" if none."""
    if passage is None:
        return ""
    best, overlap = "", 0
    for sentence in split_sentences(passage.text):
        found = len(wanted & set(content_terms(sentence.text)))
        if found > overlap:
            best, overlap = sentence.text, found
    return best


def label_claim(claim: str, cited_id: str, passages: Sequence[ShownPassage]) -> ClaimLabel:
    """Label one claim against the passage it cites and the other shown passages."""
    wanted = set(content_terms(without_markers(claim)))
    if not wanted:
        return ClaimLabel(UNSUPPORTED, "", "the claim states nothing that can be checked")
    if not cited_id:
        return ClaimLabel(UNSUPPORTED, "", "the claim cites no passage")
    by_id = {without_corpus_prefix(p.passage_id): p for p in passages}
    cited = by_id.get(without_corpus_prefix(cited_id))
    share = _share(wanted, cited)
    span = _span(wanted, cited)
    where = (f"{share:.0%} of its content terms are in {cited_id}" if cited is not None
             else f"it cites {cited_id}, which is not a retrieved passage")
    if share >= SUPPORTED_SHARE:
        return ClaimLabel(SUPPORTED, span, where)
    others = [p for p in passages if p is not cited and _share(wanted, p) >= SUPPORTED_SHARE]
    if others:
        return ClaimLabel(MISCITED, span, f"{where}; {others[0].passage_id} states it")
    if share >= PARTIAL_SHARE:
        return ClaimLabel(PARTIAL, span, f"{where}; the rest goes beyond it")
    return ClaimLabel(UNSUPPORTED, span, f"{where}; no retrieved passage states it")


def audit_claims(memo: str, passages: Sequence[ShownPassage]) -> list[dict[str, object]]:
    """The audited claims of ``memo`` as the tool reports them, numbered from 1."""
    audited: list[dict[str, object]] = []
    for block in split_blocks(memo):
        if block.label not in AUDIT_BLOCKS:
            continue
        for claim in claims(block.text):
            # The claim's first marker names its passage: its first id, if it names any.
            markers = find_markers(claim)
            cited_id = next(iter(markers[0].ids), "") if markers else ""
            found = label_claim(claim, cited_id, passages)
            audited.append({"claim_id": len(audited) + 1, "block": block.label,
                            "claim": claim, "cited_id": cited_id,
                            "supporting_span": found.supporting_span, "label": found.label,
                            "reason": with_note(found.reason)})
    return audited


def claim_audit_input(request: MessagesRequest) -> dict[str, object]:
    """The ``record_claim_audit`` input: the memo under ``MEMO:`` audited claim by claim."""
    text = request.last_user_text
    memo = fenced(text, "MEMO")
    if memo is None:
        raise invalid(f"{CLAIM_AUDIT_TOOL}: the last user turn needs a MEMO: section between "
                      "--- lines")
    return {"claims": audit_claims(memo, shown_passages(text))}
