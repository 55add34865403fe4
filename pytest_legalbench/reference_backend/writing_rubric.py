"""The six-dimension writing rubric played by fixed rules on the text, 1 to 5 each.

Every rule reads the answer with the backend's note removed; where a rule needs the answer's
conclusion it takes the first [CONCLUSION] block, else the first sentence. The rules are
written out in each function's docstring; none reads meaning, so the scores measure form.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict

from pytest_legalbench.gandr.wire import AUDIT_BLOCKS, RUBRIC_DIMENSIONS, RUBRIC_TOOL
from pytest_legalbench.reference_backend.answer_reading import conclusion_of, plain
from pytest_legalbench.reference_backend.facts import extract_facts
from pytest_legalbench.reference_backend.gandr_prompt import fenced
from pytest_legalbench.reference_backend.identity import with_note, without_note
from pytest_legalbench.reference_backend.lexical import content_terms, split_sentences
from pytest_legalbench.reference_backend.markers import has_marker, without_markers
from pytest_legalbench.reference_backend.memo_reading import Block, claims, split_blocks
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

#: The closing conclusion "repeats" the opening one when it keeps this share of its terms.
SAME_ANSWER = 0.8
# Hedges only: the modal "may" and "could" grant or describe rights in legal text, so a
# conclusion quoting "the Buyer may terminate" is not hedging.
HEDGES = frozenset({"possibly", "perhaps", "arguably", "likely", "unlikely", "unclear",
                    "appears", "appear", "seems", "seem", "probably", "uncertain",
                    "presumably", "apparently", "maybe", "somewhat"})
#: Conclusions longer than these word counts read less directly.
LONG_CONCLUSION, VERY_LONG_CONCLUSION = 40, 60
_SPECIFIC_KINDS = frozenset({"citation", "money", "percent", "date", "number"})
_CLAUSE_REFERENCE = re.compile(r"\b(?P<word>[Ss]ections?|[Cc]lauses?|[Aa]rticles?|[Ss]chedules?|"
                               r"[Pp]aragraphs?|[Ee]xhibits?|§|[Ss]ec\.|[Ss]\.)\s*"
                               r"(?P<number>\d+(?:\.\d+)*(?:\([0-9A-Za-z]{1,4}\))*)")
_QUOTED_TERM = re.compile(r"[“\"](?P<term>[^”\"\n]{2,60})[”\"]")
_NOTE = "Scored by fixed rules on the form of the text, not by reading it."


def _overlap(first: str, second: str) -> float:
    wanted = set(content_terms(first))
    return len(wanted & set(content_terms(second))) / len(wanted) if wanted else 0.0


def answer_first_last(text: str, blocks: tuple[Block, ...]) -> int:
    """AFL: 5 when an opening and a closing [CONCLUSION] both hold the answer and the closing
    one repeats the opening (``SAME_ANSWER``); 4 when both hold it but differ; 3 with only the
    opening one, 2 with only the closing one, 1 with neither. Unlabelled prose scores 4 when
    its last sentence restates the first, else 3 (a rule cannot tell an answer from a
    preamble); empty text scores 1."""
    if not text:
        return 1
    if not blocks:
        sentences = [s.text for s in split_sentences(text)]
        restated = len(sentences) > 1 and _overlap(sentences[0], sentences[-1]) >= SAME_ANSWER
        return 4 if restated else 3
    opening = blocks[0].label == "CONCLUSION" and bool(blocks[0].text)
    closing = len(blocks) > 1 and blocks[-1].label == "CONCLUSION" and bool(blocks[-1].text)
    if opening and closing:
        return 5 if _overlap(blocks[0].text, blocks[-1].text) >= SAME_ANSWER else 4
    return 3 if opening else 2 if closing else 1


def answer_clarity(text: str) -> int:
    """AC: from 5, minus 2 when the conclusion holds a hedging word (``HEDGES``), minus 1
    when it runs over ``LONG_CONCLUSION`` words (2 over ``VERY_LONG_CONCLUSION``), minus 1
    when it is more than one sentence; at least 1, and 1 for an empty conclusion."""
    conclusion = conclusion_of(text)
    words = conclusion.split()
    if not words:
        return 1
    score = 5
    if {w.strip(".,;:!?()\"'").lower() for w in words} & HEDGES:
        score -= 2
    score -= 2 if len(words) > VERY_LONG_CONCLUSION else 1 if len(words) > LONG_CONCLUSION else 0
    if len(split_sentences(conclusion)) > 1:
        score -= 1
    return max(1, score)


def conclusion_isolation(text: str, blocks: tuple[Block, ...]) -> int:
    """CI: with two or more [CONCLUSION] blocks start from 5, with one from 3, with none 1;
    minus 1 for each conclusion block that carries a citation marker or more than one claim
    (reasoning mixed into the answer); at least 1. Unlabelled prose scores 2 when its first
    paragraph stands apart (a blank line follows it), else 1."""
    if not blocks:
        return 2 if "\n\n" in text.strip() else 1
    conclusions = [b for b in blocks if b.label == "CONCLUSION"]
    if not conclusions:
        return 1
    score = 5 if len(conclusions) > 1 else 3
    for block in conclusions:
        if has_marker(block.text) or len(claims(block.text)) > 1:
            score -= 1
    return max(1, score)


def terminology_consistency(text: str) -> int:
    """DTC: 3 when the answer quotes no defined term and names no clause (nothing to be
    consistent about); otherwise 5 minus one per inconsistency, at least 1. Inconsistencies:
    a clause number written with two different words ("Section 2.1", "clause 2.1"), and a
    quoted defined term used elsewhere in another capitalisation ("Territory", "territory")."""
    body = without_markers(text)
    words_by_number: defaultdict[str, set[str]] = defaultdict(set)
    for match in _CLAUSE_REFERENCE.finditer(body):
        word = match.group("word").lower().rstrip("s") if match.group("word") != "§" else "§"
        words_by_number[match.group("number")].add(word)
    terms = {m.group("term").strip() for m in _QUOTED_TERM.finditer(body)}
    if not words_by_number and not terms:
        return 3
    faults = sum(1 for words in words_by_number.values() if len(words) > 1)
    unquoted = _QUOTED_TERM.sub(" ", body)
    for term in terms:
        uses = re.findall(rf"(?<!\w){re.escape(term)}(?!\w)", unquoted, re.IGNORECASE)
        faults += any(use != term for use in uses)
    return max(1, 5 - faults)


def evidence_alignment(text: str, blocks: tuple[Block, ...]) -> int:
    """CEA: 1 + 4 x the share of claims that carry a {cite: ID} marker, rounded half up; the
    claims are those of [EXPLANATION] and [APPLICATION], or of the whole unlabelled answer;
    1 when there is no claim."""
    if blocks:
        found = [c for b in blocks if b.label in AUDIT_BLOCKS for c in claims(b.text)]
    else:
        found = list(claims(text))
    if not found:
        return 1
    share = sum(1 for claim in found if has_marker(claim)) / len(found)
    return 1 + math.floor(4 * share + 0.5)


def fact_specificity(text: str) -> int:
    """FS: by the distinct specific facts the answer states (clause references, amounts,
    percentages, dates, numbers; markers excluded): none 1, one 3, two 4, three or more 5."""
    facts = [f for f in extract_facts(plain(text)) if f.kind in _SPECIFIC_KINDS]
    return {0: 1, 1: 3, 2: 4}.get(len(facts), 5)


def rubric_scores(answer: str) -> dict[str, int]:
    """The six scores of ``answer``, by dimension."""
    text = without_note(answer)
    blocks = split_blocks(text)
    scores = {"AFL": answer_first_last(text, blocks), "AC": answer_clarity(text),
              "CI": conclusion_isolation(text, blocks), "DTC": terminology_consistency(text),
              "CEA": evidence_alignment(text, blocks), "FS": fact_specificity(text)}
    return {name: scores[name] for name in RUBRIC_DIMENSIONS}


def rubric_input(request: MessagesRequest) -> dict[str, object]:
    """The ``record_rubric_scores`` input for the answer under ``ANSWER TO SCORE:``."""
    answer = fenced(request.last_user_text, "ANSWER TO SCORE")
    if answer is None:
        raise invalid(f"{RUBRIC_TOOL}: the last user turn needs an ANSWER TO SCORE: section "
                      "between --- lines")
    return {**rubric_scores(answer), "notes": with_note(_NOTE)}
