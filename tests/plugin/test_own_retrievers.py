"""A user's own retriever benchmarked end to end, each way it can be named, under two xdist
workers: a conftest hook, an installed package's entry point, ``py:MODULE:FACTORY``, an HTTP
service, a file of precomputed retrievals; and each way it can fail one item."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.lease_project import run_command
from tests.support.own_retriever_project import HOOK_CONFTEST, PARAGRAPHS, own_project
from tests.support.plugin_sessions import isolate_environment, summary_section
from tests.support.retrieval_service import RetrievalService

#: The lease's two questions.
QUESTIONS = ("equipment-meaning", "rent-amount")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def _results(folder: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return data


def _block(lines: list[str], mode: str) -> list[str]:
    summary = summary_section(lines)
    start = summary.index(f"{mode}: {len(QUESTIONS)} items")
    end = next((n for n in range(start + 1, len(summary)) if not summary[n].startswith(" ")),
               len(summary))
    return summary[start:end]


def test_a_conftest_hook_registers_a_retriever_that_gets_the_full_summary(
        pytester: pytest.Pytester, shared_cache: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    project = own_project(pytester, shared_cache)
    pytester.makeconftest(HOOK_CONFTEST)
    result = pytester.runpytest_subprocess(*project.args("paragraphs"),
                                           "--legalbench-report=out", timeout=300)
    result.assert_outcomes(passed=len(QUESTIONS))
    block = _block(result.outlines, "paragraphs")
    assert block[1].startswith("  document-bound: ties ")
    assert any(line.startswith("  evidence recall ") for line in block)
    assert any(line.startswith("  token footprint: inject ") for line in block)
    assert any(line.startswith("  crossover: paragraphs vs inject at warm steady state: "
                               "break-even corpus 10 x payload") for line in block)
    # Item ids carry the user's mode name; the report files are all written.
    assert re.search(r"test_question\[rent-amount-paragraphs\] PASSED|passed",
                     result.stdout.str())
    folder = pytester.path / "out"
    for name in ("results.json", "report.md", "verdicts.csv", "report.html"):
        assert (folder / name).is_file(), name
    results = _results(folder)
    records = results["records"]
    assert isinstance(records, list)
    assert {(r["question_id"], r["mode"]) for r in records} == {(q, "paragraphs")
                                                                 for q in QUESTIONS}
    assert all(r["mode_traits"] == {"shown": "provisions", "crossover": "payload"}
               and r["evidence_recall"] is not None and r["verdict"] for r in records)
    assert all(p["node_id"].startswith(f"{project.doc_id}@") for r in records
               for p in r["provisions"])
    assert "paragraphs" in (folder / "report.html").read_text(encoding="utf-8")
    # legalbench compare pairs the mode by its name, as it pairs built-in ones.
    capsys.readouterr()
    status, out, err = run_command(capsys, "compare", str(folder), str(folder), "--json")
    assert status == 0, err
    compared = json.loads(out)
    assert [(m["mode_a"], m["mode_b"], m["shared"]) for m in compared["modes"]] == [
        ("paragraphs", "paragraphs", len(QUESTIONS))]


def test_an_entry_point_and_a_py_factory_name_retrievers_on_the_workers_too(
        pytester: pytest.Pytester, shared_cache: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    project = own_project(pytester, shared_cache, ini="pythonpath = .\n")
    (pytester.path / "own_paragraphs.py").write_text(PARAGRAPHS, encoding="utf-8")
    # An installed package: its metadata names the factory in the entry-point group.
    site = pytester.path / "site"
    info = site / "own_paragraphs_pkg-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: own-paragraphs-pkg\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[pytest_legalbench.modes]\ninstalled-paragraphs = own_paragraphs:Paragraphs\n",
        encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", f"{site}:{pytester.path}")
    result = pytester.runpytest_subprocess(
        *project.args("installed-paragraphs", "py:own_paragraphs:Paragraphs"),
        "--legalbench-report=out", timeout=300)
    result.assert_outcomes(passed=2 * len(QUESTIONS))
    records = _results(pytester.path / "out")["records"]
    assert isinstance(records, list)
    by_mode: dict[str, list[float]] = {}
    for record in records:
        by_mode.setdefault(record["mode"], []).append(record["evidence_recall"])
    assert set(by_mode) == {"installed-paragraphs", "py:own_paragraphs:Paragraphs"}
    # The same retriever by either name retrieves the same.
    assert by_mode["installed-paragraphs"] == by_mode["py:own_paragraphs:Paragraphs"]
    assert _block(result.outlines, "installed-paragraphs")
    assert _block(result.outlines, "py:own_paragraphs:Paragraphs")


def test_an_http_service_is_asked_once_per_question_and_sent_no_credential(
        pytester: pytest.Pytester, shared_cache: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    project = own_project(pytester, shared_cache)
    secret = "sk-ant-never-sent-0123"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    texts = {project.doc_id: next(project.docs.iterdir()).read_text(encoding="utf-8")}
    with RetrievalService(texts).running() as service:
        result = pytester.runpytest_subprocess(*project.args(service.url), timeout=300)
    result.assert_outcomes(passed=len(QUESTIONS))
    assert sorted(seen.json["id"] for seen in service.seen) == sorted(QUESTIONS)
    for seen in service.seen:
        assert set(seen.json) == {"id", "question", "documents", "budget_tokens"}
        assert seen.json["documents"] == [project.doc_id]
        assert seen.json["budget_tokens"] == 6000
        assert not {"authorization", "x-api-key", "cookie"} & {h.lower() for h in seen.headers}
        assert secret not in json.dumps(dict(seen.headers)) and secret.encode() not in seen.body
    assert _block(result.outlines, service.url)


def test_a_service_s_answers_are_recorded_with_the_item_and_replay_without_it(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    project = own_project(pytester, shared_cache)
    texts = {project.doc_id: next(project.docs.iterdir()).read_text(encoding="utf-8")}
    with RetrievalService(texts).running() as service:
        url = service.url
        recorded = pytester.runpytest_subprocess(
            *project.args(url, workers=0, record_mode="once"),
            "--legalbench-report=recorded", timeout=300)
        asked = len(service.seen)
    recorded.assert_outcomes(passed=len(QUESTIONS))
    assert asked == len(QUESTIONS)
    cassettes = sorted((pytester.path / "cassettes").rglob("*.yaml"))
    assert any("uri: http://127.0.0.1/retrieve" in path.read_text(encoding="utf-8")
               for path in cassettes)
    # The service is gone: the replay reads its answers from the cassettes.
    replayed = pytester.runpytest_subprocess(
        *project.args(url, record_mode="none"), "--legalbench-report=replayed",
        timeout=300)
    replayed.assert_outcomes(passed=len(QUESTIONS))

    def scores(folder: str) -> dict[str, tuple[float, int]]:
        records = _results(pytester.path / folder)["records"]
        assert isinstance(records, list)
        return {r["question_id"]: (r["evidence_recall"], r["payload_tokens"]) for r in records}

    assert scores("replayed") == scores("recorded")


def test_a_file_of_retrievals_scores_as_legalbench_evaluate_does(
        pytester: pytest.Pytester, shared_cache: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    project = own_project(pytester, shared_cache)
    text = next(project.docs.iterdir()).read_text(encoding="utf-8")
    rent = text.index("2.1 The Lessee")
    lines = [
        # Found by span, found by text, one that is in no document, and one too many.
        {"id": "rent-amount", "passages": [
            {"doc_id": project.doc_id, "text": text[rent:rent + 50], "start": rent,
             "end": rent + 50},
            {"doc_id": project.doc_id, "text": "The rent is payable in gold coins."},
            {"doc_id": project.doc_id, "text": text}]},
        {"id": "equipment-meaning", "passages": [
            {"doc_id": project.doc_id, "text": "\u201cEquipment\u201d means the two forklifts"},
            {"doc_id": project.doc_id, "text": "serial numbers FL-1 and FL-2."}]},
    ]
    retrievals = pytester.path / "mine.jsonl"
    retrievals.write_text("\n".join(json.dumps(line) for line in lines) + "\n",
                          encoding="utf-8")
    mode = f"file:{retrievals}"
    result = pytester.runpytest_subprocess(*project.args(mode), "--legalbench-report=out",
                                           "--legalbench-payload-budget=100", timeout=300)
    result.assert_outcomes(passed=len(QUESTIONS))
    block = _block(result.outlines, mode)
    assert ("  payload budget: 1 of 2 retrievals cut in rank order (1 passages left out; "
            "raise --legalbench-payload-budget to keep more)") in block
    assert ("  unlocated: 1 passages not found in their documents (shown to the model, "
            "counted in the payload, outside evidence recall)") in block
    records = {r["question_id"]: r for r in _results(pytester.path / "out")["records"]}
    rent_record = records["rent-amount"]
    assert rent_record["unlocated"] == [{"rank": 2, "doc_id": project.doc_id,
                                         "text": "The rent is payable in gold coins."}]
    assert rent_record["payload_cut"] == {"budget_tokens": 100, "kept": 2, "cut": 1,
                                          "cut_tokens": -(-len(text.strip()) // 4)}
    assert len(rent_record["provisions"]) == 1
    # legalbench evaluate scores the same passages to the same recall.
    capsys.readouterr()  # what pytester printed of the run
    status, out, _ = run_command(capsys, "evaluate", "--docs", str(project.docs),
                                 "--questions", str(project.questions), "--mode", mode,
                                 "--payload-budget", "100", "-q", "--cache-dir",
                                 str(shared_cache), "--json")
    assert status == 0
    evaluated = {s["question_id"]: s for s in json.loads(out)["per_question"]
                 if s["mode"] == mode}
    assert set(evaluated) == set(QUESTIONS)
    for question, record in records.items():
        assert evaluated[question]["recall"] == record["evidence_recall"], question
        assert evaluated[question]["payload_tokens"] == record["payload_tokens"], question
    assert records["equipment-meaning"]["evidence_recall"] == 1.0


FAILING_CONFTEST = '''
import time

from pytest_legalbench import Passage


class Failing:
    """Fine on every question but the rent one, where it fails in its own way."""

    def __init__(self, corpus, how):
        self.doc = corpus.doc_ids[0]
        self.how = how

    def retrieve(self, question):
        if question.id == "rent-amount":
            if self.how == "raises":
                raise RuntimeError("the vector store is down")
            if self.how == "hangs":
                time.sleep(30)
            return [Passage(doc_id="no-such-document", text="rent")]
        return [Passage(doc_id=self.doc, text="serial numbers FL-1 and FL-2.")]


def pytest_legalbench_modes():
    return {how: (lambda corpus, how=how: Failing(corpus, how))
            for how in ("raises", "hangs", "malformed")}
'''


def test_a_retriever_that_raises_hangs_or_returns_nonsense_fails_that_item_only(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    project = own_project(pytester, shared_cache)
    pytester.makeconftest(FAILING_CONFTEST)
    result = pytester.runpytest_subprocess(*project.args("raises", "hangs", "malformed"),
                                           "--legalbench-timeout=2", "--legalbench-report=out",
                                           "-rN", timeout=300)
    result.assert_outcomes(passed=3, errors=3)
    output = result.stdout.str()  # -rN: no short summary repeating each error
    for line in (("mode 'raises', question 'rent-amount': retrieve() raised RuntimeError: the "
                 "vector store is down"),
                 ("mode 'hangs', question 'rent-amount': retrieve() took longer than the "
                 "timeout of 2 s (--legalbench-timeout)"),
                 ("mode 'malformed', question 'rent-amount': passage 1 names doc_id "
                 "'no-such-document', which is not in the corpus")):
        assert output.count(line) == 1, line
    # The failed items are not done: the run is partial, and a resume runs them again.
    title = "legalbench summary (partial: 3 of 6 items)"
    assert title in result.outlines
    assert "run journal: out/journal.jsonl (run the rest with --legalbench-resume out)" in (
        result.outlines)
    summary = summary_section(["legalbench summary" if line == title else line
                               for line in result.outlines])
    assert (
        "errors: 3 items failed with an error and are left out of the figures (hangs 1, "
        "malformed 1, raises 1): rent-amount-hangs, rent-amount-malformed, rent-amount-raises"
            ) in summary
    for mode in ("raises", "hangs", "malformed"):
        assert f"{mode}: 1 items" in summary
    errors = _results(pytester.path / "out")["summary"]["errors"]  # type: ignore[index]
    assert [(e["item"], e["mode"], e["question_id"]) for e in errors] == [
        (f"rent-amount-{m}", m, "rent-amount") for m in ("hangs", "malformed", "raises")]
    # The retriever mended, a resume runs the three failed items only, to the whole summary.
    pytester.makeconftest(FAILING_CONFTEST.replace('if question.id == "rent-amount":',
                                                   "if False:"))
    resumed = pytester.runpytest_subprocess(*project.args("raises", "hangs", "malformed"),
                                            "--legalbench-timeout=2", "--legalbench-report=out",
                                            "--legalbench-resume=out", timeout=300)
    resumed.assert_outcomes(passed=6)
    assert "legalbench summary" in resumed.outlines
    whole = _results(pytester.path / "out")
    assert "errors" not in whole["summary"]  # type: ignore[operator]
    records = whole["records"]
    assert isinstance(records, list) and len(records) == 6
    journal = (pytester.path / "out" / "journal.jsonl").read_text(encoding="utf-8")
    finished = [json.loads(line) for line in journal.splitlines() if '"kind": "item"' in line]
    # Three items journalled by the first run, the three it failed by the resume.
    assert sorted(line["item"] for line in finished) == sorted(
        f"{question}-{mode}" for question in QUESTIONS
        for mode in ("raises", "hangs", "malformed"))
