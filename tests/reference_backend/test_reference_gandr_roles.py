"""The reference backend playing GANDR's roles, request by request, on hand-written passages."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.gandr import prompting
from pytest_legalbench.gandr.citations import CITE_MARKER, grounding
from pytest_legalbench.gandr.correctness_rules import ALLOWED_SCORES, reference_kind
from pytest_legalbench.gandr.creac import BLOCK_LABELS, claims, protocol_check, split_blocks
from pytest_legalbench.gandr.passages import Passage, context_block
from pytest_legalbench.gandr.reports import AuditedClaim, ClaimAudit, RubricScores
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.gandr.tool_specs import (
    RUBRIC_DIMENSIONS,
    claim_audit_tool,
    correctness_tool,
    critic_tool,
    equivalence_tool,
    rubric_tool,
)
from pytest_legalbench.llm.call_types import ToolSpec
from pytest_legalbench.llm.prompts import REFUSAL, load_prompt
from pytest_legalbench.llm.schema import problems
from pytest_legalbench.reference_backend import BACKEND_NOTE
from pytest_legalbench.reference_backend.answering import extractive_answer
from pytest_legalbench.reference_backend.gandr_prompt import ShownPassage
from pytest_legalbench.reference_backend.passage_evidence import ranked_evidence, seeded_evidence
from pytest_legalbench.reference_backend.request_parsing import parse_request
from pytest_legalbench.reference_backend.responder import respond
from pytest_legalbench.reference_backend.staged_roles import plan_lines
from pytest_legalbench.reference_backend.wire import MessagesRequest, WireError

PASSAGES = (
    Passage("supply:3.1", "supply", "Section 3.1",
            "The Supplier shall deliver the Goods within 14 days of each purchase order."),
    Passage("supply:3.2", "supply", "Section 3.2",
            "The Supplier shall deliver the Goods to the warehouse of the Buyer in Dublin."),
    Passage("amend:2", "amend", "Section 2",
            "From 1 March 2021 the Supplier shall deliver the Goods within 10 days of each "
            "purchase order."),
    Passage("supply:9.1", "supply", "Section 9.1",
            "Either party may terminate this Agreement on ninety days written notice."),
)
IDS = [p.passage_id for p in PASSAGES]
DELIVERY = "Where and when must the Supplier deliver the Goods?"
UNRELATED = "Who audits the accounts of the Distributor?"


def make(system: str, *turns: str, tool: ToolSpec | None = None,
         seed: int | None = None) -> MessagesRequest:
    """A parsed request: turns alternate user, assistant, user, ..."""
    body: dict[str, Any] = {"model": "m", "max_tokens": 4096, "system": system, "messages": [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t}
        for i, t in enumerate(turns)]}
    if tool is not None:
        body["tools"] = [tool.to_param()]
        body["tool_choice"] = {"type": "tool", "name": tool.name}
    if seed is not None:
        body["seed"] = seed
    return parse_request(json.dumps(body).encode(), needs_max_tokens=True)


def text_of(request: MessagesRequest) -> str:
    block = respond(request, "digest").content[0]
    assert block["type"] == "text"
    text = str(block["text"])
    assert text.endswith(BACKEND_NOTE)
    return text


def tool_of(request: MessagesRequest) -> dict[str, Any]:
    block = respond(request, "digest").content[0]
    assert block["type"] == "tool_use"
    data = block["input"]
    assert isinstance(data, dict)
    return data


def memo(question: str = DELIVERY, passages: Sequence[Passage] = PASSAGES,
         directives: Sequence[str] = (), seed: int | None = None) -> str:
    return text_of(make(prompting.drafter_system(),
                        prompting.drafter_user(question, passages, directives), seed=seed))


def _markers(text: str) -> list[str]:
    return [ids.strip() for ids in CITE_MARKER.findall(text)]


def _passage_holding(claim: str) -> str:
    """The id of the passage whose text holds ``claim`` once its marker is removed."""
    body = CITE_MARKER.sub("", claim).strip()
    return next(p.passage_id for p in PASSAGES if body in p.text)


# -- output formats -------------------------------------------------------------------------
def test_a_request_without_a_format_line_gets_the_plain_extractive_answer() -> None:
    request = make("Answer from the provisions.", f"<question>\n{DELIVERY}\n</question>")
    assert text_of(request).startswith(extractive_answer(request))


def test_the_last_user_turns_format_wins_and_unknown_formats_are_named() -> None:
    staged = make(prompting.plain_system("gandr_analyst_system"),
                  prompting.answer_user(DELIVERY, PASSAGES) + "\nOutput format: plan.")
    assert text_of(staged).startswith("- Which retrieved passage governs")
    with pytest.raises(WireError, match="'Output format: sonnet.'") as caught:
        respond(make("Output format: sonnet.", "hi"), "digest")
    assert caught.value.status == 400


def test_a_format_line_inside_a_passage_is_document_text() -> None:
    quoted = Passage("x:1", "x", "Section 1", "Output format: plan.")
    request = make("No format here.", prompting.answer_user(DELIVERY, [quoted]))
    assert text_of(request).startswith(extractive_answer(request))


def test_the_memo_passes_the_structure_and_grounding_checks() -> None:
    written = memo()
    assert protocol_check(written).passed
    assert grounding(written, IDS).grounded
    blocks = split_blocks(written)
    assert tuple(b.label for b in blocks) == BLOCK_LABELS
    for label in ("[CONCLUSION]", "[RULE]", "[EXPLANATION]", "[APPLICATION]"):
        assert f"\n{label}\n" in f"\n{written}"
    opening, closing = blocks[0].text, blocks[-1].text.replace(BACKEND_NOTE, "").strip()
    assert opening == closing
    assert "Section 3.2 {cite: supply:3.2}" in blocks[1].text


def test_every_memo_claim_cites_the_passage_it_quotes() -> None:
    for block in split_blocks(memo()):
        if block.label in ("EXPLANATION", "APPLICATION"):
            for claim in claims(block.text):
                assert _markers(claim) == [_passage_holding(claim)]


def test_the_memo_declines_when_no_passage_answers() -> None:
    written = memo(UNRELATED)
    blocks = split_blocks(written)
    assert blocks[0].text == REFUSAL
    assert protocol_check(written).passed and grounding(written, IDS).grounded


def test_a_directive_flagging_a_cited_passage_drops_it() -> None:
    before = memo()
    assert "{cite: supply:3.2}" in before
    after = memo(directives=["Claim 1 (cites supply:3.2) is PARTIAL: narrow it."])
    assert "supply:3.2" not in after and protocol_check(after).passed


def test_cited_answer_and_findings_quote_passages_with_their_ids() -> None:
    answer = text_of(make(prompting.plain_system("gandr_analyst_system"),
                          prompting.answer_user(DELIVERY, PASSAGES)))
    found = [c for c in claims(answer.replace(BACKEND_NOTE, "")) if c.strip()]
    assert found and all(_markers(c) == [_passage_holding(c)] for c in found)
    notes = text_of(make(load_prompt("gandr_researcher_system").render(),
                         prompting.answer_user(DELIVERY, PASSAGES)))
    lines = notes.replace(BACKEND_NOTE, "").strip().splitlines()
    assert lines and all(line.startswith("- ") and line[2:].split(": ")[0] in IDS
                         for line in lines)
    declined = make(prompting.plain_system("gandr_analyst_system"),
                    prompting.answer_user(UNRELATED, PASSAGES))
    assert text_of(declined).startswith(REFUSAL)


def test_the_writer_keeps_to_the_passages_the_notes_name() -> None:
    turn = load_prompt("gandr_writer_user").render(
        question=DELIVERY, findings="- amend:2: the later delivery period",
        context=context_block(PASSAGES))
    answer = text_of(make(prompting.plain_system("gandr_writer_system"), turn))
    assert set(_markers(answer)) == {"amend:2"}


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=120))
def test_a_plan_has_three_to_five_questions(question: str) -> None:
    lines = plan_lines(question)
    assert 3 <= len(lines) <= 5 and all(line.endswith("?") for line in lines)


def test_the_review_lists_bad_and_missing_markers() -> None:
    system = prompting.plain_system("gandr_staged_system")
    first = load_prompt("gandr_staged_plan").render(question=DELIVERY,
                                                    context=context_block(PASSAGES))
    review = load_prompt("gandr_staged_review").render()
    draft = ("The Supplier delivers within 14 days. {cite: supply:3.1} It delivers to Dublin. "
             "{cite: supply:9.9} Risk passes on delivery.")
    found = text_of(make(system, first, "plan", "draft step", draft, review))
    assert "{cite: supply:9.9} matches no passage id" in found
    assert "Risk passes on delivery" in found
    clean = text_of(make(system, first, "plan", "draft step",
                         "The Supplier delivers in 14 days. {cite: supply:3.1}", review))
    assert clean.startswith("No problem found")


# -- seeds ----------------------------------------------------------------------------------
def test_a_seed_varies_the_memo_and_repeats_it_exactly() -> None:
    by_seed = {seed: memo(seed=seed) for seed in range(8)}
    assert len(set(by_seed.values())) > 1
    assert all(memo(seed=seed) == written for seed, written in by_seed.items())
    assert all(protocol_check(m).passed and grounding(m, IDS).grounded for m in by_seed.values())
    assert memo() == memo()


SHOWN = [ShownPassage(p.passage_id, p.clause, p.text) for p in PASSAGES]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.none(), st.integers(min_value=0, max_value=10**12)))
def test_seeded_evidence_is_a_nonempty_selection_of_the_near_best(seed: int | None) -> None:
    ranked = ranked_evidence(DELIVERY, SHOWN)
    chosen = seeded_evidence(ranked, seed)
    assert chosen and set(chosen) <= set(ranked) and len(set(chosen)) == len(chosen)
    if seed is None:
        assert chosen == ranked


# -- claim audit ----------------------------------------------------------------------------
def audit(explanation: str, application: str) -> list[dict[str, Any]]:
    draft = (f"[CONCLUSION]\nYes.\n\n[RULE]\nSection 3.1 {{cite: supply:3.1}}.\n\n"
             f"[EXPLANATION]\n{explanation}\n\n[APPLICATION]\n{application}\n\n"
             f"[CONCLUSION]\nYes.")
    turn = load_prompt("gandr_audit_user").render(context=context_block(PASSAGES), draft=draft)
    return list(tool_of(make(load_prompt("gandr_audit_system").render(), turn,
                             tool=claim_audit_tool()))["claims"])


def test_the_audit_gives_each_of_the_four_labels() -> None:
    found = audit(
        "The Supplier shall deliver the Goods within 14 days of each purchase order. "
        "{cite: supply:3.1} Either party may terminate this Agreement on ninety days written "
        "notice. {cite: supply:3.2}",
        "The Supplier shall deliver the Goods to the warehouse in Dublin by rail. "
        "{cite: supply:3.2} The Buyer owes a penalty for late payment.")
    assert [c["label"] for c in found] == ["SUPPORTED", "MISCITED", "PARTIAL", "UNSUPPORTED"]
    assert [c["claim_id"] for c in found] == [1, 2, 3, 4]
    assert [c["block"] for c in found] == ["EXPLANATION"] * 2 + ["APPLICATION"] * 2
    assert [c["cited_id"] for c in found] == ["supply:3.1", "supply:3.2", "supply:3.2", ""]
    assert found[0]["supporting_span"] == PASSAGES[0].text
    assert "supply:9.1" in found[1]["reason"]
    assert all(c["reason"].endswith(BACKEND_NOTE) for c in found)
    ClaimAudit.from_tool({"claims": found})


# -- rubric ---------------------------------------------------------------------------------
def rubric(answer: str) -> dict[str, Any]:
    turn = load_prompt("gandr_rubric_user").render(answer=answer)
    return tool_of(make(load_prompt("gandr_rubric_system").render(), turn, tool=rubric_tool()))


def test_the_rubric_scores_form_by_rule() -> None:
    good = rubric(memo())
    assert min(good[d] for d in RUBRIC_DIMENSIONS) >= 3 and good["AFL"] == good["CI"] == 5
    assert good["CEA"] == 5 and "rules" in good["notes"] and good["notes"].endswith(BACKEND_NOTE)
    poor = rubric("It seems the Supplier probably delivers goods at some point, perhaps.")
    assert poor["AC"] < good["AC"] and poor["CEA"] == 1 and poor["FS"] == 1
    assert poor["CI"] < good["CI"]
    mixed = rubric('"Goods" means tools. Under Section 3.1 the goods come; clause 3.1 says so.')
    assert mixed["DTC"] == 3
    RubricScores.from_tool(good)


# -- critic ---------------------------------------------------------------------------------
def critic(protocol: str, audit_report: ClaimAudit | None,
           scores: dict[str, int] | None) -> dict[str, Any]:
    rubric_report = RubricScores(tuple(scores.items())) if scores else None
    turn = prompting.critic_user(
        DELIVERY, PASSAGES, "[CONCLUSION]\nYes.", protocol=protocol,
        audit=audit_report.summary() if audit_report else "unavailable (never conformed)",
        rubric=rubric_report.summary() if rubric_report else "unavailable (never conformed)")
    return tool_of(make(prompting.critic_system(GandrSettings()), turn, tool=critic_tool()))


def _claim(number: int, label: str, block: str = "EXPLANATION",
           cited: str = "supply:3.1") -> AuditedClaim:
    return AuditedClaim(number, block, "a claim", cited, "", label, "why\n\n" + BACKEND_NOTE)


FIVES = dict.fromkeys(RUBRIC_DIMENSIONS, 5)


def test_the_critic_passes_only_when_every_check_is_clean() -> None:
    clean = critic("pass", ClaimAudit((_claim(1, "SUPPORTED"),)), FIVES)
    assert clean["decision"] == "PASS" and clean["directives"] == []
    assert clean["rationale"].endswith(BACKEND_NOTE)


def test_the_critic_names_each_failure() -> None:
    flagged = ClaimAudit((_claim(1, "SUPPORTED"), _claim(2, "MISCITED", "APPLICATION",
                                                          "supply:3.2(a)")))
    verdict = critic("fail: the closing [CONCLUSION] block is missing", flagged,
                     {**FIVES, "AFL": 2})
    assert verdict["decision"] == "REWRITE"
    text = "\n".join(verdict["directives"])
    assert "the closing [CONCLUSION] block is missing" in text
    assert "Claim 2 in [APPLICATION] (cites supply:3.2(a)) is MISCITED" in text
    assert "AFL scored 2/5" in text and len(verdict["directives"]) == 3
    low_mean = critic("pass", ClaimAudit((_claim(1, "SUPPORTED"),)),
                      {**FIVES, "AC": 3, "CI": 3, "FS": 3, "DTC": 3})
    assert low_mean["decision"] == "REWRITE" and len(low_mean["directives"]) == 4
    unavailable = critic("pass", None, None)
    assert unavailable["decision"] == "REWRITE" and len(unavailable["directives"]) == 2


# -- correctness and equivalence ------------------------------------------------------------
def grade(reference: str, answer: str, question: str = DELIVERY) -> dict[str, Any]:
    kind = reference_kind(reference)
    turn = load_prompt("gandr_correctness_user").render(question=question, reference=reference,
                                                        answer=answer)
    return tool_of(make(prompting.correctness_system(kind), turn,
                        tool=correctness_tool(ALLOWED_SCORES[kind])))


def test_binary_references_compare_the_yes_or_no() -> None:
    assert grade("Yes", "Yes, the Supplier must deliver.")["score"] == 5
    assert grade("No", "The Supplier shall deliver the Goods. {cite: supply:3.1}")["score"] == 1
    assert grade("No", "[CONCLUSION]\nThe Buyer cannot refuse delivery.\n")["score"] == 5


def test_numeric_references_take_the_closest_figure() -> None:
    graded = grade("10 days", memo())
    assert graded["candidate_figure"] == "10" and graded["score"] == 5
    near = grade("$1,000,000", "The cap is $1.01 million, or 3% of fees.")
    assert near["candidate_figure"] == "$1.01 million" and near["score"] == 4
    assert "candidate_figure" not in grade("$5", "No figure here at all.")


def test_open_and_citation_references_by_coverage() -> None:
    reference = "Within 10 days of each purchase order, under the amendment."
    assert grade(reference, "Within 10 days of each purchase order under the amendment "
                            "{cite: amend:2}.")["score"] == 5
    assert grade(reference, "The Buyer pays in euros.")["score"] == 1
    assert grade("Section 2", "Delivery time is set by {cite: amend:2}.")["score"] == 5
    assert grade("Section 9.1", "See Section 3.1 {cite: supply:3.1}.")["score"] == 1


def test_refusals_score_only_against_silent_references() -> None:
    assert grade("The Supplier delivers in 10 days.", REFUSAL)["score"] == 1
    assert grade("The documents are silent on audits.", REFUSAL)["score"] == 5
    assert grade("The documents are silent on audits.", "Audits happen yearly.")["score"] == 1


def equivalent(answer_a: str, answer_b: str) -> bool:
    turn = load_prompt("gandr_equivalence_user").render(question=DELIVERY, answer_a=answer_a,
                                                        answer_b=answer_b)
    found = tool_of(make(load_prompt("gandr_equivalence_system").render(), turn,
                         tool=equivalence_tool()))
    assert found["rationale"].endswith(BACKEND_NOTE)
    return bool(found["equivalent"])


def test_equivalence_compares_conclusions() -> None:
    assert equivalent(memo(seed=3), memo(seed=3))
    assert equivalent(REFUSAL, f"{REFUSAL}\n\n{BACKEND_NOTE}")
    assert not equivalent(REFUSAL, memo())
    assert not equivalent("Yes, within 10 days.", "No, within 10 days.")
    assert not equivalent("The Supplier delivers to Dublin.", "Either party may terminate.")


# -- odd input ------------------------------------------------------------------------------
FORMATS = ("creac-memo", "cited-answer", "findings", "plan", "review")
TOOLS = (claim_audit_tool(), rubric_tool(), critic_tool(), correctness_tool((1, 2, 3, 4, 5)),
         equivalence_tool())
_PIECES = st.sampled_from([
    "QUESTION:\n", "REFERENCE ANSWER:\n", "ANSWER TO GRADE:\n", "MEMO:\n", "ANSWER A:\n",
    "ANSWER B:\n", "---\n", "\n\n", "[CONCLUSION]\n", "[APPLICATION]\n", "{cite: a:1}",
    "{cite: }", '<passage id="a:1" clause="Section 1">\nThe fee is $5.\n</passage>',
    "- structure (protocol_check): fail: x\n",
    "- citation audit (claim by claim): 1 of 2 claims SUPPORTED (50% verified)\n",
    "- writing rubric: AFL 1/5; mean 1.00, minimum 1\n",
    "CHECK REPORTS:\n", REFUSAL, "Yes", "Section 2.1", "$1.5 million", "the Tenant pays"])
_ODD_TEXT = st.lists(st.one_of(_PIECES, st.text(max_size=30)), max_size=12).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FORMATS), _ODD_TEXT, st.one_of(st.none(), st.integers(0, 99)))
def test_any_writing_turn_gets_a_noted_text(name: str, turn: str, seed: int | None) -> None:
    request = make(f"Policy: at least 95% ... average at least 4 with none below 3.\n"
                   f"Output format: {name}.", turn or "x", "draft", turn or "x", seed=seed)
    assert text_of(request).strip()


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(TOOLS), _ODD_TEXT)
def test_any_tool_turn_gets_an_input_or_a_named_error(tool: ToolSpec, turn: str) -> None:
    request = make("PASS when at least 95% are SUPPORTED and the scores average at least 4 "
                   "with none below 3.", turn or "x", tool=tool)
    try:
        data = tool_of(request)
    except WireError as error:
        assert error.status == 400 and tool.name in error.message
    else:
        assert not problems(data, tool.input_schema)
