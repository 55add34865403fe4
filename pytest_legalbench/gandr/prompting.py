"""GANDR's prompts rendered: the packaged templates filled with question, passages and reports."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_legalbench.gandr.passages import Passage, context_block
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.llm.prompts import load_prompt

#: The per-kind rule the correctness judge is given (SPEC section 11's special cases).
KIND_RULES = {
    "binary": ("The reference answer is a plain yes or no. Score 5 when the answer's operative "
               "holding is the same yes or no, otherwise 1; do not use 2, 3 or 4."),
    "citation": ("The reference answer is a single provision. Score 5 when the answer names "
                 "that provision as the one that controls, otherwise 1; do not use 2, 3 or 4."),
    "numeric": ("The reference answer is a figure. Put the one figure the answer gives as its "
                "result in candidate_figure, written as the answer writes it: its closeness to "
                "the reference decides the grade (exact 5, within 1% 4, within 10% 3, the "
                "right order of magnitude 2, otherwise 1)."),
    "open": "",
}


def grounding_rules() -> str:
    """The citation rules every writing prompt carries."""
    return load_prompt("gandr_grounding").render().strip()


def drafter_system(self_check: bool = False) -> str:
    """The Drafter's instructions; with ``self_check``, B2's six-point check appended."""
    check = f"\n{load_prompt('gandr_selfcheck').render().strip()}\n" if self_check else ""
    return load_prompt("gandr_drafter_system").render(grounding=grounding_rules(),
                                                      self_check=check).strip()


def drafter_user(question: str, passages: Sequence[Passage],
                 directives: Sequence[str] = ()) -> str:
    """The Drafter's turn: the question, the passages and, after round 1, the directives."""
    block = ""
    if directives:
        listed = "\n".join(f"- {d}" for d in directives)
        block = load_prompt("gandr_directives").render(directives=listed)
    return load_prompt("gandr_drafter_user").render(
        question=question.strip(), context=context_block(passages), directives=block)


def plain_system(name: str) -> str:
    """A system prompt whose only placeholder is the grounding rules."""
    return load_prompt(name).render(grounding=grounding_rules()).strip()


def answer_user(question: str, passages: Sequence[Passage]) -> str:
    """The user turn of a single-call answer: question then passages."""
    return load_prompt("gandr_answer_user").render(question=question.strip(),
                                                   context=context_block(passages))


def critic_system(settings: GandrSettings) -> str:
    """The Critic's instructions with the PASS policy's numbers filled in."""
    return load_prompt("gandr_critic_system").render(
        verified_percent=f"{settings.verified_bar * 100:g}",
        rubric_mean=f"{settings.rubric_mean_bar:g}", rubric_min=f"{settings.rubric_min_bar:g}")


def critic_user(question: str, passages: Sequence[Passage], draft: str, *, protocol: str,
                audit: str, rubric: str) -> str:
    """The Critic's turn: what a reader sees, plus the three check reports."""
    return load_prompt("gandr_critic_user").render(
        question=question.strip(), context=context_block(passages), draft=draft.strip(),
        protocol=protocol, audit=audit, rubric=rubric)


def correctness_system(kind: str) -> str:
    """The correctness judge's instructions with the rule for the reference's kind."""
    if kind not in KIND_RULES:
        raise ValueError(f"unknown reference kind {kind!r}: choose one of {', '.join(KIND_RULES)}")
    rule = KIND_RULES[kind]
    return load_prompt("gandr_correctness_system").render(
        kind_rule=f"\n{rule}\n" if rule else "")
