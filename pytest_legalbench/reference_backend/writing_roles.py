"""GANDR's writing roles played extractively: the CREAC memo, the cited answer, the findings.

A request is dispatched on its ``Output format:`` line (see ``gandr_prompt``); a request
without one is not a GANDR writing call and is left to the plain extractive answerer.
Every statement written here is a sentence quoted from a shown passage and followed by that
passage's ``{cite: ID}``, so what the writer says is grounded by construction; sentences are
cut into claims (``memo_reading.claims``), each piece carrying the marker, so a claim audit
of the output finds every claim cited. When no sentence passes the ranking, the answer
is the refusal sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from pytest_legalbench.gandr.wire import AUDIT_LABELS, SUPPORTED
from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.reference_backend.gandr_prompt import (
    ShownPassage,
    conversation_passages,
    conversation_question,
    output_format,
    section,
)
from pytest_legalbench.reference_backend.memo_reading import claims
from pytest_legalbench.reference_backend.passage_evidence import (
    Evidence,
    best_sentence,
    passages_of,
    ranked_evidence,
    seeded_evidence,
    summary,
)
from pytest_legalbench.reference_backend.staged_roles import plan, review
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

_FLAG_LABEL = re.compile(
    rf"\b(?:{'|'.join(label for label in AUDIT_LABELS if label != SUPPORTED)})\b")
_PASSAGE_END = "</passage>"
# A refusal memo still names where it looked: the first passages, as retrieval ranked them.
_PASSAGES_NAMED_ON_REFUSAL = 2
_NOTHING_SETTLES = ("None of the retrieved passages states what the question asks, so the "
                    "documents do not settle it.")


def cited(evidence: Evidence) -> str:
    """The sentence with its passage's marker after each claim-sized piece of it."""
    marker = f"{{cite: {evidence.passage_id}}}"
    pieces = claims(evidence.text) or (evidence.text,)
    return " ".join(f"{piece} {marker}" for piece in pieces)


def _clause_name(passage_id: str, clause: str) -> str:
    return clause or f"passage {passage_id}"


def _rule(evidence: Sequence[Evidence]) -> str:
    clauses = {item.passage_id: item.clause for item in evidence}
    named = [f"{_clause_name(pid, clauses[pid])} {{cite: {pid}}}" for pid in passages_of(evidence)]
    return f"The question is governed by {_listed(named)}."


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def flagged_passages(user_text: str, passage_ids: Sequence[str]) -> set[str]:
    """Passage ids that reviewer directives flag as cited by a faulty claim.

    Directives are the bullet lines after the last passage of the turn; a line flags a shown
    id written right after "cites" when the line also names an audit label other than
    SUPPORTED (the audit reports a claim as "claim N (BLOCK, cites ID) LABEL").
    """
    tail = user_text[user_text.rfind(_PASSAGE_END) + len(_PASSAGE_END):] \
        if _PASSAGE_END in user_text else ""
    flagged: set[str] = set()
    for line in tail.splitlines():
        if not line.lstrip().startswith("- ") or not _FLAG_LABEL.search(line):
            continue
        # An id is matched whole: "doc:2.1" is not flagged by "cites doc:2.1(a)".
        flagged.update(pid for pid in passage_ids
                       if re.search(rf"\bcites\s+{re.escape(pid)}(?![\w(])", line))
    return flagged


def creac_memo(request: MessagesRequest) -> str:
    """A five-block CREAC memo quoting the best sentences of the shown passages.

    Directives from a reviewer change one thing: a passage they flag (see
    ``flagged_passages``) is left out of the evidence, unless nothing else would remain.
    """
    question = conversation_question(request)
    passages = conversation_passages(request)
    ranked = ranked_evidence(question, passages)
    flagged = flagged_passages(request.last_user_text, [p.passage_id for p in passages])
    kept = [item for item in ranked if item.passage_id not in flagged] or ranked
    evidence = seeded_evidence(kept, request.seed)
    if not evidence:
        return _refusal_memo(question, passages)
    conclusion = evidence[0].text
    explanation = " ".join(cited(item) for item in evidence[:1])
    application = " ".join(cited(item) for item in (evidence[1:] or evidence[:1]))
    return _memo(conclusion, _rule(evidence), explanation, application)


def _refusal_memo(question: str, passages: Sequence[ShownPassage]) -> str:
    nearest = passages[:_PASSAGES_NAMED_ON_REFUSAL]
    if not nearest:
        return _memo(REFUSAL, "No passage was retrieved for the question.",
                     "No passage was retrieved, so there is nothing to cite.", _NOTHING_SETTLES)
    named = [f"{_clause_name(p.passage_id, p.clause)} {{cite: {p.passage_id}}}"
             for p in nearest]
    rule = f"The passages closest to the question are {_listed(named)}."
    closest = nearest[0]
    explanation = cited(Evidence(closest.passage_id, closest.clause,
                                 best_sentence(question, closest)))
    return _memo(REFUSAL, rule, explanation, _NOTHING_SETTLES)


def _memo(conclusion: str, rule: str, explanation: str, application: str) -> str:
    return (f"[CONCLUSION]\n{conclusion}\n\n[RULE]\n{rule}\n\n[EXPLANATION]\n{explanation}\n\n"
            f"[APPLICATION]\n{application}\n\n[CONCLUSION]\n{conclusion}")


def _answer_passages(request: MessagesRequest) -> tuple[ShownPassage, ...]:
    """The shown passages, narrowed to those a researcher's notes name when there are notes."""
    passages = conversation_passages(request)
    notes = section(request.last_user_text, "RESEARCHER'S NOTES")
    if notes:
        named = tuple(p for p in passages if p.passage_id in notes)
        return named or passages
    return passages


def cited_answer(request: MessagesRequest) -> str:
    """The best sentences as prose, each piece followed by its passage's marker."""
    ranked = ranked_evidence(conversation_question(request), _answer_passages(request))
    evidence = seeded_evidence(ranked, request.seed)
    return " ".join(cited(item) for item in evidence) if evidence else REFUSAL


def findings(request: MessagesRequest) -> str:
    """One line per passage that answers the question: ``- ID: its best sentence``."""
    evidence = seeded_evidence(ranked_evidence(conversation_question(request),
                                               conversation_passages(request)), request.seed)
    if not evidence:
        return "No retrieved passage addresses the question."
    first: dict[str, str] = {}
    for item in evidence:
        first.setdefault(item.passage_id, item.text)
    return "\n".join(f"- {pid}: {summary(text)}" for pid, text in first.items())


_WRITERS: Mapping[str, Callable[[MessagesRequest], str]] = {
    "creac-memo": creac_memo, "cited-answer": cited_answer, "findings": findings,
    "plan": plan, "review": review,
}


def gandr_text(request: MessagesRequest) -> str | None:
    """The text a GANDR writing prompt asks for; None when the prompt names no format."""
    name = output_format(request)
    if name is None:
        return None
    writer = _WRITERS.get(name)
    if writer is None:
        raise invalid(f"messages: 'Output format: {name}.' is not a format the reference "
                      f"backend writes (it writes: {', '.join(sorted(_WRITERS))})")
    return writer(request)
