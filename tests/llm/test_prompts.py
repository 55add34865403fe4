"""Prompt templates: headers, strict rendering, the legal rules they carry, the wire format."""

from __future__ import annotations

import pytest

from pytest_legalbench.defaults import MAX_SCAN_NODES
from pytest_legalbench.files.locations import prompts_dir
from pytest_legalbench.llm.prompts import (
    REFUSAL,
    Prompt,
    PromptError,
    answer_system,
    answer_user,
    document_block,
    judge_user,
    load_prompt,
    provisions_block,
    scan_system,
)

NAMES = tuple(sorted(path.stem for path in prompts_dir().glob("*.txt")))


@pytest.mark.parametrize("name", NAMES)
def test_every_prompt_has_a_versioned_header(name: str) -> None:
    prompt = load_prompt(name)
    assert prompt.name == name and prompt.version >= 1
    assert not prompt.template.startswith("#:")


def test_rendering_is_strict() -> None:
    prompt = Prompt("x", 1, "Hello $who")
    assert prompt.render(who="you") == "Hello you"
    with pytest.raises(PromptError, match=r"prompts/x.txt: missing values \['who'\]"):
        prompt.render()
    with pytest.raises(PromptError, match=r"unexpected values \['extra'\]"):
        prompt.render(who="you", extra="!")
    with pytest.raises(PromptError, match="nowhere.txt"):
        load_prompt("nowhere")


def test_the_answer_rules_are_in_the_system_prompt() -> None:
    text = answer_system()
    assert text.rstrip().endswith(REFUSAL)
    for rule in ("later instrument prevails", "specific provision", "defined term",
                 "[doc_id] Clause X"):
        assert rule in text


def test_the_scan_prompt_routes_by_flags_and_caps_the_selection() -> None:
    text = scan_system()
    assert f"at most {MAX_SCAN_NODES} nodes" in text
    for flag in ("isDefinition", "hasMoney", "hasDate", "hasPercentage", "hasLiabilityLimit",
                 "hasCondition", "hasParty", "isTocEntry"):
        assert flag in text
    assert "choose both" in text


def test_wire_blocks() -> None:
    block = document_block([("acme", 'Supply "A"', "1. Term.")])
    assert block == ('<documents>\n<document doc_id="acme" title="Supply &quot;A&quot;">\n'
                     "1. Term.\n</document>\n</documents>")
    provisions = provisions_block([("acme", "acme:1", "Section 1", "", "Term.")])
    assert '<provision doc_id="acme" node_id="acme:1" clause="Section 1">\nTerm.\n' in provisions
    placed = provisions_block([("acme", "acme:1", "Section 1", 'Supply "A" > 1. Term', "Term.")])
    assert 'clause="Section 1" path="Supply &quot;A&quot; &gt; 1. Term">' in placed
    user = answer_user("  What is the term? ", provisions)
    assert user.startswith("<provisions>") and user.endswith("<question>\nWhat is the term?\n</question>\n")
    judged = judge_user("Q?", "a", "b", None)
    assert "<reference>" not in judged and "<answer_a>\na\n</answer_a>" in judged
    assert "<reference>\nR\n</reference>" in judge_user("Q?", "a", "b", "R")


def test_every_prompt_file_is_checked() -> None:
    assert {"answer_system", "judge_user", "gandr_drafter_system", "gandr_critic_user"} <= set(NAMES)


@pytest.mark.parametrize("self_check", [False, True])
def test_gandr_writing_prompts_name_their_output_format_last(self_check: bool) -> None:
    from pytest_legalbench.gandr import prompting

    # The reference backend chooses what to write by this line; a model reads it as a rule.
    systems = [prompting.drafter_system(self_check),
               prompting.plain_system("gandr_analyst_system"),
               prompting.plain_system("gandr_strict_analyst_system"),
               prompting.plain_system("gandr_writer_system"),
               load_prompt("gandr_researcher_system").render()]
    assert [text.strip().splitlines()[-1] for text in systems] == [
        "Output format: creac-memo.", "Output format: cited-answer.",
        "Output format: cited-answer.", "Output format: cited-answer.",
        "Output format: findings."]
    assert "{cite: ID}" in prompting.grounding_rules()


def test_the_correctness_judge_is_told_the_rule_of_the_references_kind() -> None:
    from pytest_legalbench.gandr.prompting import correctness_system

    assert "do not use 2, 3 or 4" in correctness_system("binary")
    assert "candidate_figure" in correctness_system("numeric")
    assert "do not use" not in correctness_system("open")
    with pytest.raises(ValueError, match="unknown reference kind"):
        correctness_system("vague")
