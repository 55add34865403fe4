"""Checks before spending: every problem of a question set listed at once with file and
line, evidence quotes located before any call, the report folder tried at startup, and
--legalbench-skip-invalid running the rest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_legalbench.ingest.questions import load_question
from pytest_legalbench.run.preflight import (
    check_evidence,
    check_question_files,
    check_report_folder,
)
from tests.support.plugin_sessions import (
    MODES,
    QUESTION_IDS,
    QUESTIONS,
    bench,
    isolate_environment,
    prepare,
    recording,
)

GOOD = "glufox-royalty-base"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def question_folder(folder: Path) -> dict[str, Path]:
    """The three shared questions and three bad files beside them: a kind that is none, a
    missing field, and an id used twice."""
    folder.mkdir(exist_ok=True)
    for question in QUESTION_IDS:
        shutil.copy(QUESTIONS / f"{question}.yaml", folder)
    text = (QUESTIONS / f"{GOOD}.yaml").read_text(encoding="utf-8")
    bad = {"riddle": folder / "riddle.yaml", "no-area": folder / "no-area.yaml",
           "twice": folder / "twice.yml"}
    bad["riddle"].write_text(text.replace(f"id: {GOOD}", "id: riddle")
                             .replace("kind: definition", "kind: riddle"), encoding="utf-8")
    bad["no-area"].write_text("\n".join(line for line in text.replace(f"id: {GOOD}", "id: no-area")
                                        .splitlines() if not line.startswith("practice_area")),
                              encoding="utf-8")
    bad["twice"].write_text(text.replace(f"id: {GOOD}", "id: twice"), encoding="utf-8")
    shutil.copy(bad["twice"], folder / "twice.yaml")
    return bad


def test_every_bad_question_file_is_listed_with_its_line(tmp_path: Path) -> None:
    bad = question_folder(tmp_path / "questions")
    checked = check_question_files(tmp_path / "questions")
    assert [q.id for q in checked.questions] == sorted([*QUESTION_IDS, "twice"])
    kind_line = next(n for n, line in enumerate(
        bad["riddle"].read_text(encoding="utf-8").splitlines(), 1) if line.startswith("kind:"))
    assert [str(p) for p in checked.problems] == [
        f"{bad['no-area']}:1: missing field(s) practice_area",
        (f"{bad['riddle']}:{kind_line}: field 'kind' is 'riddle'; expected one of lookup, "
        f"definition, crossref, precedence, out_of_scope"),
        f"{bad['twice']}:1: id 'twice' is also used by {tmp_path / 'questions' / 'twice.yaml'}"]
    assert set(checked.invalid) == {str(path) for path in bad.values()}


def test_a_quote_missing_from_its_document_is_a_problem_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / f"{GOOD}.yaml"
    text = (QUESTIONS / f"{GOOD}.yaml").read_text(encoding="utf-8")
    path.write_text(text.replace("Fox will remit all VGSL Revenue",
                                 "Fox will never remit VGSL Revenue"), encoding="utf-8")
    question = load_question(path)
    doc = question.evidence[0].doc_id
    texts = {doc: " ".join(e.quote for e in load_question(QUESTIONS / f"{GOOD}.yaml").evidence)}
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "Fox will remit" in row)
    (problem,) = check_evidence([question], texts)
    assert str(problem) == (f"{path}:{line}: evidence quote 'Fox will never remit VGSL Revenue "
                            f"to Licensee and such VGSL ' is not in document {doc!r}")
    assert next(p.what for p in check_evidence([question], {})) == (
        f"evidence names document {doc!r}, which the corpus does not hold")


def test_a_report_folder_that_is_a_file_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("", encoding="utf-8")
    problem = check_report_folder(tmp_path / "taken" / "report")
    assert problem is not None and "the report folder cannot be written" in problem.what
    assert check_report_folder(tmp_path / "new" / "report") is None
    assert (tmp_path / "new" / "report").is_dir()


def test_a_bad_question_set_is_one_error_listing_every_problem_before_any_call(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    prepare(pytester)
    bad = question_folder(pytester.path / "questions")
    quoted = pytester.path / "questions" / f"{GOOD}.yaml"
    quoted.write_text(quoted.read_text(encoding="utf-8").replace(
        "Fox will remit all VGSL Revenue", "Fox will never remit VGSL Revenue"), encoding="utf-8")
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args("navindex"),
                                "--legalbench-questions=questions", "-n", "2")
    # One collection error (xdist counts it as a failed session rather than an interrupted one).
    assert result.ret in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.TESTS_FAILED)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "legalbench question set (4 problems):", "  questions/no-area.yaml:1: missing field*",
        "  questions/riddle.yaml:9: field 'kind' is 'riddle'*",
        "  questions/twice.yml:1: id 'twice'*",
        f"  questions/{quoted.name}:28: evidence quote 'Fox will never remit*"])
    assert sorted(bad) == ["no-area", "riddle", "twice"]
    # Printed once in the error report. The short summary below it repeats the message in full
    # when pytest sees a CI environment (it truncates it elsewhere), so it is left out here.
    report = result.stdout.str().split("short test summary info")[0]
    assert report.count("no-area.yaml:1: missing field") == 1
    assert "passed" not in result.stdout.str()


def test_skip_invalid_runs_the_valid_questions_and_errors_each_bad_file(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    bad = question_folder(pytester.path / "questions")
    (pytester.path / "questions" / "twice.yaml").unlink()
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args(*MODES),
                                "--legalbench-questions=questions", "--legalbench-skip-invalid",
                                "--record-mode=none")
    # The three good questions and the copy named twice (no longer twice) under both modes.
    result.assert_outcomes(passed=8, errors=2)
    assert sorted(bad) == ["no-area", "riddle", "twice"]
    result.stdout.fnmatch_lines(["*questions/riddle.yaml:9: field 'kind' is 'riddle'*"])
    result.stdout.fnmatch_lines(["*test_question[[]invalid-no-area[]]*"])


def test_an_unwritable_report_folder_stops_the_run_at_startup(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    prepare(pytester)
    (pytester.path / "taken").write_text("", encoding="utf-8")
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args("navindex"),
                                "--legalbench-report=taken/out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("ERROR: taken/out: the report folder cannot be written (*); "
                                 "choose another --legalbench-report")])
    assert len(result.stderr.lines) <= 2


def test_no_corpus_is_one_error_not_one_per_item(pytester: pytest.Pytester,
                                                 tmp_path_factory: pytest.TempPathFactory,
                                                 corpus_root: Path, tmp_path: Path) -> None:
    prepare(pytester)
    shared = bench(tmp_path_factory, corpus_root)
    result = pytester.runpytest(*shared.args("navindex"), f"--legalbench-corpus-dir={tmp_path}")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert result.stdout.str().count("legalbench corpus: ") == 1
    result.assert_outcomes(errors=1)
