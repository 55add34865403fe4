"""The cuad question generator on a small CUAD-shaped corpus: present and absent categories,
families, key facts, skips and their reasons, determinism, and loading as a question set."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from pytest_legalbench.ingest.decoding import read_document
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.questions import Question, load_question_set
from pytest_legalbench.judging.keyfacts import score_answer
from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.run.preflight import check_evidence, check_question_files
from pytest_legalbench.spans.cuad_categories import ANSWER_TYPES, CATEGORIES
from pytest_legalbench.spans.cuad_questions import (
    CATALOGUE_FILE,
    REPORT_FILE,
    GeneratedQuestionSet,
    generate_cuad_questions,
    question_id,
    read_catalogue,
    set_digest,
    write_question_set,
)
from tests.support.cuad_corpus import (
    AMENDMENT,
    NO_SOLICIT,
    NON_COMPETE,
    ROWS,
    SERVICES,
    SERVICES_TEXT,
    SUPPLY,
    SUPPLY_TEXT,
    make_corpus,
)


@pytest.fixture
def generated(tmp_path: Path) -> GeneratedQuestionSet:
    corpus, manifest = make_corpus(tmp_path)
    return generate_cuad_questions(corpus, manifest_path=manifest)


SUPPLY_FAMILY = "alpha_06_21_1999-ex-10-1"
SERVICES_FAMILY = "gamma_01_02_2003-ex-10-2-services-agreement"


def _question(generated: GeneratedQuestionSet, family: str, column: str) -> dict[str, object]:
    category = next(c for c in CATEGORIES if c.column == column)
    data = yaml.safe_load(generated.files[f"{question_id(family, category)}.yaml"])
    assert isinstance(data, dict)
    return data


def test_the_table_has_the_41_cuad_categories_in_our_words() -> None:
    assert len(CATEGORIES) == 41
    assert len({c.column for c in CATEGORIES}) == len({c.slug for c in CATEGORIES}) == 41
    assert {c.answer for c in CATEGORIES} == set(ANSWER_TYPES)
    for category in CATEGORIES:
        placeholder = {"title": "{parties}", "parties": "{party}"}.get(category.answer,
                                                                       "{contract}")
        assert placeholder in category.template, category.column
        assert category.template.endswith("?")
        assert category.kind in ("lookup", "definition", "crossref")
        assert category.scope in ("family", "base")


def test_a_present_yes_no_category_asks_and_answers_yes(
        generated: GeneratedQuestionSet) -> None:
    question = _question(generated, SUPPLY_FAMILY, "Non-Compete")
    assert question["question"] == (
        "Does the Supply Agreement between Alpha Widgets Ltd. and Beta Stores Inc. restrict a "
        "party from competing with the other, or from operating in a territory, business or "
        "technology sector?")
    assert question["must_contain"] == ["Yes"]
    assert question["evidence"] == [{"doc_id": "alpha_06_21_1999-ex-10-1-supply-agreement",
                                     "quote": NON_COMPETE}]
    assert str(question["reference"]).startswith("Yes: the Supply Agreement between")
    assert question["kind"] == "lookup" and question["practice_area"] == "competition"
    # The family's documents are all in scope, amendment included.
    assert question["documents"] == ["alpha_06_21_1999-ex-10-1-supply-agreement",
                                     "alpha_06_21_1999-ex-10-1-supply-agreement_amendment"]


def test_an_amendment_annotates_its_family(generated: GeneratedQuestionSet) -> None:
    question = _question(generated, SUPPLY_FAMILY, "No-Solicit Of Employees")
    assert question["evidence"] == [{
        "doc_id": "alpha_06_21_1999-ex-10-1-supply-agreement_amendment", "quote": NO_SOLICIT}]


def test_an_absent_yes_no_category_is_a_control_answered_no(
        generated: GeneratedQuestionSet) -> None:
    question = _question(generated, SUPPLY_FAMILY, "Exclusivity")
    assert question["kind"] == "out_of_scope"
    assert question["evidence"] == [] and question["must_contain"] == ["No"]
    assert question["absent_clause"] == "Exclusivity"
    reference = str(question["reference"])
    assert reference.startswith("No: the Supply Agreement") and "no provision in it" in reference
    # Absent from both documents of the family, and the reference says so.
    assert "or in the documents filed with it" in reference


def test_an_absent_value_category_is_a_control_answered_by_declining(
        generated: GeneratedQuestionSet) -> None:
    question = _question(generated, SUPPLY_FAMILY, "Expiration Date")
    assert question["kind"] == "out_of_scope" and question["must_contain"] == []
    assert "does not address the end of its initial term" in str(question["reference"])


@pytest.mark.parametrize(("column", "facts"), [
    ("Agreement Date", ["June", "21", "1999"]),
    ("Renewal Term", ["1", "year"]),
    ("Notice Period To Terminate Renewal", ["90", "day"]),
    ("Governing Law", ["New York"]),
    ("Document Name", ["SUPPLY AGREEMENT"]),
    ("Parties", ["Beta Stores Inc."]),
])
def test_value_answers_become_facts_the_evidence_states(
        generated: GeneratedQuestionSet, column: str, facts: list[str]) -> None:
    question = _question(generated, SUPPLY_FAMILY, column)
    assert question["must_contain"] == facts


def test_evidence_is_quoted_from_the_text_not_the_csv(generated: GeneratedQuestionSet) -> None:
    # The CSV's excerpt breaks the line differently; the quote is the contract's own text.
    question = _question(generated, SUPPLY_FAMILY, "Governing Law")
    evidence = question["evidence"]
    assert isinstance(evidence, list) and evidence[0]["quote"] in SUPPLY_TEXT


def test_templates_name_the_contract_without_quoting_the_clause(
        generated: GeneratedQuestionSet) -> None:
    assert _question(generated, SUPPLY_FAMILY, "Document Name")["question"] == (
        "What is the title of the agreement between Alpha Widgets Ltd. and Beta Stores Inc.?")
    assert _question(generated, SUPPLY_FAMILY, "Parties")["question"] == (
        "Besides Alpha Widgets Ltd., who is a party to the Supply Agreement?")
    for text in generated.files.values():
        data = yaml.safe_load(text)
        for quote in data["evidence"]:
            assert quote["quote"] not in data["question"]


def test_what_cannot_be_asked_fairly_is_reported_with_its_reason(
        generated: GeneratedQuestionSet) -> None:
    reasons = {(s.family, s.category): (s.kind, s.reason) for s in generated.report.skipped}
    assert reasons[SERVICES_FAMILY, "Agreement Date"] == (
        "answer_without_excerpt", "answer ['1/2/03'] but no excerpt was annotated")
    assert reasons[SERVICES_FAMILY, "License Grant"] == (
        "answer_without_excerpt", "answer Yes but no excerpt was annotated")
    assert reasons[SERVICES_FAMILY, "Non-Compete"] == (
        "not_located", "its excerpts could not be located in the text")
    assert generated.report.skipped_by_kind == {"answer_without_excerpt": 2,
                                                  "not_located": 1}
    assert "2 an answer but no excerpt; 1 its excerpts could not be located" in \
        generated.report.summary_lines()[2]
    (missed,) = generated.report.unlocated
    assert (missed.contract, missed.category) == (SERVICES, "Non-Compete")
    assert generated.report.excerpts == generated.report.located + 1
    # Quebec is stated; "Canada" is not, so it is not a fact.
    assert _question(generated, SERVICES_FAMILY, "Governing Law")["must_contain"] == ["Quebec"]


def test_counts_add_up(generated: GeneratedQuestionSet) -> None:
    report = generated.report
    assert report.families == 2 and report.contracts == 3
    assert report.questions == len(generated.files) == len(generated.catalogue)
    assert report.questions + len(report.skipped) == 2 * len(CATEGORIES)
    assert report.controls == sum(entry.control for entry in generated.catalogue)
    per = report.per_category
    assert sum(c.questions for c in per.values()) == report.questions
    assert sum(c.skipped for c in per.values()) == len(report.skipped)


def test_the_same_inputs_give_the_same_bytes(tmp_path: Path) -> None:
    first_corpus, first_manifest = make_corpus(tmp_path / "a")
    second_corpus, second_manifest = make_corpus(tmp_path / "b")
    first = generate_cuad_questions(first_corpus, manifest_path=first_manifest)
    second = generate_cuad_questions(second_corpus, manifest_path=second_manifest)
    assert first.files == second.files
    assert first.digest == second.digest == set_digest(first.files)
    changed = {**ROWS, SERVICES: {**ROWS[SERVICES], "Governing Law": (
        ["The laws of Quebec govern this agreement."], "Quebec")}}
    third_corpus, third_manifest = make_corpus(tmp_path / "c", changed)
    assert generate_cuad_questions(third_corpus, manifest_path=third_manifest).digest \
        != first.digest


def test_the_set_loads_and_passes_preflight(generated: GeneratedQuestionSet,
                                            tmp_path: Path) -> None:
    folder = tmp_path / "questions"
    write_question_set(generated, folder)
    questions = load_question_set(folder)
    assert len(questions) == generated.report.questions
    checked = check_question_files(folder)
    assert checked.problems == ()
    texts = {doc_id_for(name): read_document(tmp_path / "cuad" / "contracts" / name).text
             for name in (SUPPLY, AMENDMENT, SERVICES)}
    assert check_evidence(questions, texts) == []
    assert read_catalogue(folder) == generated.catalogue
    assert (folder / REPORT_FILE).is_file() and (folder / CATALOGUE_FILE).is_file()


def test_the_key_fact_score_checks_controls_and_answers(generated: GeneratedQuestionSet,
                                                        tmp_path: Path) -> None:
    folder = tmp_path / "questions"
    write_question_set(generated, folder)
    by_id = {q.id: q for q in load_question_set(folder)}
    ids = {column: question_id(SUPPLY_FAMILY, next(c for c in CATEGORIES if c.column == column))
           for column in ("Exclusivity", "Expiration Date", "Non-Compete")}

    def correct(question: Question, answer: str) -> bool:
        return score_answer(answer, question.must_contain, out_of_scope=question.out_of_scope,
                            refusal=REFUSAL).correct

    exclusivity = by_id[ids["Exclusivity"]]
    assert correct(exclusivity, "No. Nothing in the agreement makes either party exclusive.")
    assert correct(exclusivity, REFUSAL)
    assert not correct(exclusivity, "Yes: Beta must buy all its widgets from Alpha.")
    expiry = by_id[ids["Expiration Date"]]
    assert correct(expiry, REFUSAL) and not correct(expiry, "It ends on June 21, 2004.")
    non_compete = by_id[ids["Non-Compete"]]
    assert correct(non_compete, "Yes. Section 3 bars Beta from selling competing widgets.")
    assert not correct(non_compete, REFUSAL)


def test_a_corpus_without_the_categories_is_named(tmp_path: Path) -> None:
    corpus, manifest = make_corpus(tmp_path)
    csv_path = corpus / "cuad" / "master_clauses.csv"
    rows = list(csv.reader(csv_path.open(encoding="utf-8")))
    keep = [i for i, name in enumerate(rows[0]) if not name.startswith("Insurance")]
    with csv_path.open("w", encoding="utf-8", newline="") as out:
        csv.writer(out).writerows([[row[i] for i in keep] for row in rows])
    with pytest.raises(CorpusError, match="no column for the categories Insurance"):
        generate_cuad_questions(corpus, manifest_path=manifest)


def test_a_changed_contract_is_named(tmp_path: Path) -> None:
    corpus, manifest = make_corpus(tmp_path)
    (corpus / "cuad" / "contracts" / SERVICES).write_text(SERVICES_TEXT + "More.\n",
                                                          encoding="utf-8")
    with pytest.raises(CorpusError, match="GAMMA.*checksum mismatch"):
        generate_cuad_questions(corpus, manifest_path=manifest)


def test_long_family_names_are_cut_and_kept_unique() -> None:
    category = CATEGORIES[0]
    long_a, long_b = "x" * 70 + "-a", "x" * 70 + "-b"
    assert question_id(long_a, category) != question_id(long_b, category)
    assert len(question_id(long_a, category)) < 90
    assert question_id("Acme_Corp--X", category) == "acme-corp-x-document-name"


def test_the_howto_page_lists_every_category_as_the_code_has_it() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "how-to"
            / "cuad-questions.md").read_text(encoding="utf-8")
    for category in CATEGORIES:
        template = category.template
        for name in ("contract", "parties", "party", "title"):
            template = template.replace("{" + name + "}", f"*{name}*")
        scope = " (agreement only)" if category.scope == "base" else ""
        row = (f"| {category.column}{scope} | {template} | {category.answer.replace('_', '/')} "
               f"| {category.kind} | {category.practice_area} | {category.difficulty} |")
        assert row in page, category.column
