"""The model-free key-fact score: normalisation rules, digit boundaries, declining, properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.judging.keyfacts import (
    POLARITY_FACTS,
    KeyFactScore,
    normalise,
    score_answer,
)

REFUSAL = "The documents do not answer this question."


def found(answer: str, fact: str) -> bool:
    """Whether ``fact`` counts as found in ``answer`` for a document-bound question."""
    score = score_answer(answer, [fact], out_of_scope=False, refusal=REFUSAL)
    return score.found == (fact,)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  The  Fee\tIS\n\nDUE ", "the fee is due"),
        ("$5,000,000", "$5000000"),
        ("1,000.50", "1000.5"),
        ("1.95 percent", "1.95%"),
        ("1.95 per cent", "1.95%"),
        ("1.95 Per\nCent", "1.95%"),
        ("1.95   %", "1.95%"),
        ("2.50", "2.5"),
        ("2.00", "2"),
        ("2.05", "2.05"),
        ("100.500", "100.5"),
        ("percentage", "percentage"),
        ("Clause 1.2.10", "clause 1.2.10"),
        ("items 1,2,3", "items 1,2,3"),
    ],
)
def test_normalise_rules(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("The cap is $5,000,000 in aggregate.", "$5000000"),
        ("The cap is $5,000,000 in aggregate.", "5,000,000"),
        ("The cap is $5000000 in aggregate.", "$5,000,000"),
        ("Interest accrues at 1.95% a year.", "1.95 %"),
        ("Interest accrues at 1.95% a year.", "1.95 percent"),
        ("Interest accrues at 1.95 per cent a year.", "1.95%"),
        ("Notice must be given within ninety (90) days.", "90"),
        ("Notice must be given within ninety (90) days.", "NINETY (90)  days"),
        ("The margin is 2.50%.", "2.5%"),
        ("The margin is 2.5%.", "2.50 per cent"),
        ("The fee is 30.", "30"),
        ("Payment is due on 30 June 2024.", "30 june"),
        ("Acme   Holdings\nLimited is the Borrower.", "acme holdings limited"),
        ("The 1990 Agreement and the 90-day period.", "90"),
        ("See Clause 14.3(b).", "clause 14.3"),
    ],
)
def test_fact_is_found(answer: str, fact: str) -> None:
    assert found(answer, fact)


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("The Agreement is dated 1990.", "90"),
        ("The threshold is 190 units.", "90"),
        ("The threshold is 905 units.", "90"),
        ("The rate is 30.5 per cent.", "30"),
        ("The rate is 30.5 per cent.", "0.5"),
        ("Clause 1.2.10 applies.", "2.10"),
        ("The cap is $5,000,000.", "$500,000"),
        ("The cap is 15,000,000.", "5,000,000"),
        ("The rate is 1.95%.", "1.9%"),
        ("The margin is 2.5%.", "25%"),
        ("Notice within ninety days.", "90"),
    ],
)
def test_fact_is_not_found(answer: str, fact: str) -> None:
    assert not found(answer, fact)


def test_score_records_found_and_missing_in_order() -> None:
    score = score_answer(
        "Acme pays $1,000 within 10 days.",
        ["10 days", "$2,000", "acme", "Zenith"],
        out_of_scope=False,
        refusal=REFUSAL,
    )
    assert score == KeyFactScore(
        found=("10 days", "acme"), missing=("$2,000", "Zenith"), declined=False, correct=False
    )
    assert score.share == 0.5


def test_document_bound_answer_is_correct_only_with_every_fact_and_no_refusal() -> None:
    facts = ["$1,000", "10 days"]
    answer = "Acme pays $1,000 within 10 days."
    full = score_answer(answer, facts, out_of_scope=False, refusal=REFUSAL)
    assert full.correct and full.share == 1.0 and not full.declined
    hedged = score_answer(
        f"Acme pays $1,000 within 10 days. {REFUSAL}", facts, out_of_scope=False, refusal=REFUSAL
    )
    assert hedged.declined and not hedged.correct
    partial = score_answer("Acme pays $1,000.", facts, out_of_scope=False, refusal=REFUSAL)
    assert not partial.correct and partial.missing == ("10 days",)


def test_control_is_correct_only_when_declined() -> None:
    declined = score_answer(
        "the documents DO NOT\nanswer   this question.", [], out_of_scope=True, refusal=REFUSAL
    )
    assert declined.declined and declined.correct and declined.share == 1.0
    answered = score_answer("The fee is $10.", [], out_of_scope=True, refusal=REFUSAL)
    assert not answered.declined and not answered.correct


@pytest.mark.parametrize(
    ("answer", "fact", "expected"),
    [
        ("Yes. Section 9 caps each party's liability at the fees paid.", "Yes", True),
        ("**Yes** - see Section 9.", "yes", True),
        ("  yes, subject to Section 9.2", "YES", True),
        ("Section 9 caps liability; so yes.", "Yes", False),
        ("Yesterday's notice governs.", "Yes", False),
        ("No. The agreement has no such clause.", "No", True),
        ("Nothing in the agreement restricts it.", "No", False),
        ("Notice is required: no party may assign it.", "No", False),
        ("Yes, but no party may assign it.", "No", False),
    ],
)
def test_yes_and_no_count_only_as_the_first_word(answer: str, fact: str,
                                                 expected: bool) -> None:
    assert found(answer, fact) is expected


def test_a_control_with_facts_is_answered_by_declining_or_stating_them() -> None:
    stated = score_answer("No. There is no non-compete in the agreement.", ["No"],
                          out_of_scope=True, refusal=REFUSAL)
    assert stated.correct and not stated.declined
    declined = score_answer(REFUSAL, ["No"], out_of_scope=True, refusal=REFUSAL)
    assert declined.correct and declined.declined
    invented = score_answer("Yes: Section 7 bars competition for two years.", ["No"],
                            out_of_scope=True, refusal=REFUSAL)
    assert not invented.correct and invented.missing == ("No",)


def test_refusal_must_appear_whole() -> None:
    score = score_answer("The documents do not answer this", [], out_of_scope=True, refusal=REFUSAL)
    assert not score.declined and not score.correct


def test_no_facts_gives_full_share() -> None:
    score = score_answer("", [], out_of_scope=False, refusal=REFUSAL)
    assert score.share == 1.0 and score.correct


@pytest.mark.parametrize("fact", ["", "   ", "\n\t"])
def test_blank_fact_is_rejected_by_position(fact: str) -> None:
    with pytest.raises(ValueError, match=r"must_contain\[1\] is blank"):
        score_answer("anything", ["fee", fact], out_of_scope=False, refusal=REFUSAL)


def test_blank_refusal_is_rejected() -> None:
    with pytest.raises(ValueError, match="refusal must not be blank"):
        score_answer("anything", ["fee"], out_of_scope=False, refusal=" ")


def test_non_string_fact_is_rejected_by_position() -> None:
    with pytest.raises(TypeError, match=r"must_contain\[0\] must be a string, got int: 90"):
        score_answer(
            "ninety (90) days",
            [90],  # type: ignore[list-item]
            out_of_scope=False,
            refusal=REFUSAL,
        )


def test_non_string_answer_is_rejected() -> None:
    with pytest.raises(TypeError, match="answer must be a string, got NoneType"):
        score_answer(None, ["fee"], out_of_scope=False, refusal=REFUSAL)  # type: ignore[arg-type]


def test_string_instead_of_fact_list_is_rejected() -> None:
    with pytest.raises(TypeError, match="must_contain must be a sequence"):
        score_answer("anything", "fee", out_of_scope=False, refusal=REFUSAL)


# Facts shaped like real key facts (amounts, rates, dates, names, clause numbers) and free text;
# a bare yes or no is a polarity fact, found only as the first word (tested on its own below).
fact_texts = st.one_of(
    st.from_regex(
        r"\$?[1-9][0-9]{0,2}(,[0-9]{3}){0,3}(\.[0-9]{1,2})?( ?%| per ?cent)?", fullmatch=True
    ),
    st.from_regex(r"[1-9][0-9]?(\.[0-9]{1,2}){0,3}", fullmatch=True),
    st.from_regex(r"[A-Za-z][A-Za-z .,()&-]{0,20}", fullmatch=True),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=20),
).filter(lambda fact: fact.strip() != "" and normalise(fact) not in POLARITY_FACTS)
# Letter-only words, so a word can never fuse with a number in the fact. "per" and "cent" are left
# out because, next to a fact ending in "per" or starting with "cent", they would spell a percent
# sign that the fact on its own does not contain.
words = st.lists(
    st.from_regex(r"[A-Za-z]{1,8}", fullmatch=True).filter(
        lambda word: word.lower() not in {"per", "cent"}
    ),
    max_size=6,
)


@given(fact_texts, words, words)
def test_fact_is_found_verbatim_among_any_words(
    fact: str, before: list[str], after: list[str]
) -> None:
    answer = " ".join([*before, fact, *after])
    assert found(answer, fact)


whitespace_runs = st.text(alphabet=" \t\n\u00a0", min_size=1, max_size=3)


@st.composite
def respelled(draw: st.DrawFn, text: str) -> str:
    """``text`` with the case of each letter flipped at random and each whitespace run varied."""
    pieces: list[str] = []
    for char in text:
        if char.isspace():
            if not pieces or not pieces[-1][-1:].isspace():
                pieces.append(draw(whitespace_runs))
        elif char.isalpha() and draw(st.booleans()):
            pieces.append(char.swapcase())
        else:
            pieces.append(char)
    return "".join(pieces)


ascii_text = st.text(alphabet=st.sampled_from("abcDEF 019.,%$\n\t"), max_size=40)


@given(st.data(), ascii_text, st.lists(fact_texts, max_size=3), st.booleans())
def test_case_and_whitespace_never_change_the_score(
    data: st.DataObject, answer: str, facts: list[str], out_of_scope: bool
) -> None:
    refusal = "The documents are silent."
    answer = answer + data.draw(st.sampled_from(["", " " + refusal]))
    varied_answer = data.draw(respelled(answer))
    varied_facts = [data.draw(respelled(fact)) for fact in facts]
    baseline = score_answer(answer, facts, out_of_scope=out_of_scope, refusal=refusal)
    varied = score_answer(
        varied_answer,
        varied_facts,
        out_of_scope=out_of_scope,
        refusal=data.draw(respelled(refusal)),
    )
    assert (varied.share, varied.declined, varied.correct) == (
        baseline.share,
        baseline.declined,
        baseline.correct,
    )
    # Fact by fact, so that duplicated facts cannot hide a difference.
    for fact, varied_fact in zip(facts, varied_facts, strict=True):
        assert found(answer, fact) == found(varied_answer, varied_fact)
