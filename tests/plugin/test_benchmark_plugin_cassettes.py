"""The benchmark plugin replaying cassettes through pytester: replay equals recording (under
xdist, and with no server to answer), missing and corrupted cassettes, an unparseable judge
verdict, a loss under --legalbench-fail-on-loss, the reference server's stop after a failing
session, inject alone, and the key-fact protocol.

Every session here replays copies of the cassettes the shared recording session left behind
(see ``test_benchmark_plugin.py``), some of them edited to stage a case.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import socket
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from pytest_legalbench.judging.judge import VERDICT_TOOL
from pytest_legalbench.llm.prompts import REFUSAL
from tests.support.fake_messages import FakeMessages
from tests.support.plugin_sessions import (
    CONTROL,
    MODES,
    bench,
    isolate_environment,
    item_ids,
    junit_records,
    prepare,
    recording,
    summary_section,
)

#: The item whose cassette the tests below edit: a document-bound question under navindex.
EDITED = "glufox-royalty-base-navindex"
#: The reference backend's server thread (see reference_backend/server.py).
SERVER_THREAD = "legalbench-reference-backend"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, to show a replay wrote nothing."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def verdicts(records: dict[str, dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """What the judge and the key facts decided, per item."""
    return {name: (r["raw_forward"], r["raw_reverse"], r["verdict"],
                   r["keyfacts_inject"]["correct"],
                   None if r["keyfacts_mode"] is None else r["keyfacts_mode"]["correct"])
            for name, r in records.items()}


def edit_verdicts(cassette: Path, forward: str, reverse: str, *, repeat_forward: bool = False,
                  ) -> None:
    """Rewrite the two recorded judge verdicts; ``repeat_forward`` records the forward reply
    twice, as a second (retried) attempt would have been."""
    data = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    judged = []
    for item in data["interactions"]:
        body = json.loads(item["response"]["body"]["string"])
        calls = [block for block in body.get("content", [])
                 if block.get("type") == "tool_use" and block.get("name") == VERDICT_TOOL]
        if calls:
            judged.append((item, body, calls[0]))
    assert len(judged) == 2, f"{cassette}: expected the forward and reverse judge calls"
    for (item, body, call), verdict in zip(judged, (forward, reverse), strict=True):
        call["input"]["verdict"] = verdict
        item["response"]["body"]["string"] = json.dumps(body)
    if repeat_forward:
        first = data["interactions"].index(judged[0][0])
        data["interactions"].insert(first + 1, copy.deepcopy(judged[0][0]))
    cassette.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


def edit_answer(cassette: Path, text: str) -> None:
    """Replace the text of the one answering response recorded in ``cassette``."""
    data = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    edited = 0
    for item in data["interactions"]:
        body = json.loads(item["response"]["body"]["string"])
        texts = [block for block in body.get("content", []) if block.get("type") == "text"]
        for block in texts:
            block["text"] = text
        edited += bool(texts)
        item["response"]["body"]["string"] = json.dumps(body)
    assert edited == 1, f"{cassette}: expected one answering response, found {edited}"
    cassette.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


def refuses(url: str) -> bool:
    """Whether nothing listens at ``url``'s host and port any more."""
    parts = urlsplit(url)
    try:
        with socket.create_connection((str(parts.hostname), int(parts.port or 80)), timeout=2):
            return False
    except ConnectionRefusedError:
        return True


def test_xdist_gives_the_aggregates_of_a_serial_run(pytester: pytest.Pytester,
                                                    tmp_path_factory: pytest.TempPathFactory,
                                                    corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    before = tree_bytes(pytester.path / "cassettes")
    result = pytester.runpytest_subprocess(
        *bench(tmp_path_factory, corpus_root).args(*MODES), "-n", "2", "--junitxml=junit.xml",
        timeout=300)
    result.assert_outcomes(passed=6)
    result.stdout.re_match_lines([r".*2 workers \[6 items\].*"])
    assert summary_section(result.outlines) == summary_section(run.lines)
    records = junit_records(pytester.path / "junit.xml")
    assert set(records) == item_ids(MODES)
    assert verdicts(records) == verdicts(junit_records(run.folder / "junit.xml"))
    assert tree_bytes(pytester.path / "cassettes") == before  # replayed, nothing re-recorded


def _passes(facts: dict[str, Any] | None) -> bool:
    return bool(facts and facts["correct"])


def _expected_split(records: list[dict[str, Any]], mode: str) -> list[str]:
    """The split lines of the document-bound items, counted here from the records."""
    scored = [r for r in records if r["verdict"] in ("tie", "inject", "mode")]
    n = len(scored)
    lines = []
    for verdict, label in (("tie", "ties"), ("inject", "inject wins"), ("mode", f"{mode} wins")):
        chosen = [r for r in scored if r["verdict"] == verdict]
        if not chosen:
            lines.append(f"    {label} by key facts: none")
            continue
        cells = [(_passes(r["keyfacts_inject"]), _passes(r["keyfacts_mode"])) for r in chosen]
        both_pass = sum(a and b for a, b in cells)
        both_fail = sum(not a and not b for a, b in cells)
        differ = len(cells) - both_pass - both_fail
        text = (f"    {label} by key facts: both pass {both_pass}/{n} .*; both fail "
                f"{both_fail}/{n} .*; differ {differ}/{n} ")
        if verdict != "tie":
            winner = 0 if verdict == "inject" else 1
            failing = sum(not cell[winner] for cell in cells)
            text += f".*; won by a failing answer {failing}/{n} "
        lines.append(text)
    return lines


def test_the_summary_splits_ties_and_wins_by_key_facts_under_xdist(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    prepare(pytester, recording(tmp_path_factory, corpus_root).cassettes)
    # A win staged for the mode, so that a win line has counts whatever was recorded.
    edit_verdicts(pytester.path / "cassettes" / "reference" / "test_legalbench" / f"{EDITED}.yaml",
                  "B", "A")
    result = pytester.runpytest_subprocess(
        *bench(tmp_path_factory, corpus_root).args("navindex"), "-n", "2",
        "--junitxml=junit.xml", "--legalbench-report=report", timeout=300)
    result.assert_outcomes(passed=3)
    records = list(junit_records(pytester.path / "junit.xml").values())
    summary = summary_section(result.outlines)
    bound = summary.index(next(line for line in summary if line.startswith("  document-bound:")))
    expected = _expected_split([r for r in records if r["kind"] != "out_of_scope"], "navindex")
    for line, pattern in zip(summary[bound + 1:bound + 4], expected, strict=True):
        assert re.match(pattern, line), (pattern, line)
    # The headline line itself is unchanged by the split.
    assert re.match(r"  document-bound: ties \d/2 .*; inject wins \d/2 .*; navindex wins "
                    r"[12]/2 .*; unscored 0$", summary[bound])
    # The control's verdict is split apart, under its own line.
    control = summary.index(next(line for line in summary if line.startswith("  out-of-scope:")))
    assert summary[control + 1].startswith("    ties by key facts: ")
    split = json.loads((pytester.path / "report" / "results.json").read_text(encoding="utf-8"))[
        "summary"]["modes"]["navindex"]["document_bound_split"]
    assert split["scored"] == 2 and split["mode"]["items"] >= 1


def test_a_replay_needs_no_server_and_equals_the_recording(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = recording(tmp_path_factory, corpus_root)
    # The reference cassettes filed under a live backend, whose server (a stand-in) would
    # answer any request that reached it with an error: none may.
    prepare(pytester, run.cassettes, backend="anthropic")
    before = tree_bytes(pytester.path / "cassettes")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "fake-key")
    with FakeMessages() as server:
        host = server.base_url.removeprefix("http://")
        result = pytester.runpytest(
            *bench(tmp_path_factory, corpus_root).args(*MODES), "--record-mode=none",
            "--legalbench-backend=anthropic", f"--legalbench-base-url={server.base_url}",
            "--junitxml=junit.xml")
        # Asked once which server it is (it lists no models: an unidentified one, given the
        # requests Claude gets); no model call reached it.
        assert server.requests == [] and set(server.get_paths) == {"/v1/models"}
    result.assert_outcomes(passed=6)
    replayed, recorded = summary_section(result.outlines), summary_section(run.lines)
    # Only the backend's name differs: the same calls were answered from the same files.
    assert replayed[1].startswith(f"backend messages-api at {host} (")
    assert "(server: a Messages-API server; capability rules: none)" in replayed
    assert [line for line in replayed[2:] if not line.startswith("(server:")] == \
        [line for line in recorded[2:] if not line.startswith("(reference")]
    assert verdicts(junit_records(pytester.path / "junit.xml")) == \
        verdicts(junit_records(run.folder / "junit.xml"))
    assert tree_bytes(pytester.path / "cassettes") == before


def test_a_missing_cassette_fails_a_live_backend_item_with_how_to_record(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "fake-key")
    args = [*bench(tmp_path_factory, corpus_root).args("navindex"),
            "--legalbench-backend=anthropic", "-k", "glufox or territory"]
    with FakeMessages() as server:
        args.append(f"--legalbench-base-url={server.base_url}")
        # No cassette at all: the item's own is needed first (inject's answer is recorded
        # in a cassette of its own, nested in the item's).
        result = pytester.runpytest(*args)
        result.assert_outcomes(errors=2)
        item = f"*/cassettes/anthropic/test_legalbench/{EDITED}.yaml"
        result.stdout.fnmatch_lines([f"*no cassette at {item}*--record-mode=once*"])
        # The items' cassettes present, inject's (shared by the question's items) missing.
        shutil.copytree(run.cassettes / "test_legalbench",
                        pytester.path / "cassettes" / "anthropic" / "test_legalbench")
        result = pytester.runpytest(*args)
        result.assert_outcomes(errors=2)
        inject = "*/cassettes/anthropic/test_legalbench-inject/glufox-royalty-base.yaml"
        result.stdout.fnmatch_lines([f"*no cassette at {inject}*--record-mode=once*"])
        assert server.requests == []
    assert not (pytester.path / "cassettes" / "anthropic" / "test_legalbench-inject").exists()


def test_a_corrupted_cassette_errors_its_item_only(pytester: pytest.Pytester,
                                                   tmp_path_factory: pytest.TempPathFactory,
                                                   corpus_root: Path) -> None:
    prepare(pytester, recording(tmp_path_factory, corpus_root).cassettes)
    broken = pytester.path / "cassettes" / "reference" / "test_legalbench" / f"{EDITED}.yaml"
    broken.write_text("interactions: [{request: 7\n  garbage", encoding="utf-8")
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args(*MODES))
    result.assert_outcomes(passed=5, errors=1)
    result.stdout.fnmatch_lines([f"*{EDITED}: cassette {broken} cannot be read*",
                                 f"ERROR *test_question[[]{EDITED}[]]*"], consecutive=False)
    assert broken.read_text(encoding="utf-8").endswith("garbage")  # left for the user to see


def test_an_unparseable_verdict_is_unscored_and_a_loss_is_no_failure(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    prepare(pytester, recording(tmp_path_factory, corpus_root).cassettes)
    items = pytester.path / "cassettes" / "reference" / "test_legalbench"
    edit_verdicts(items / f"{EDITED}.yaml", "maybe", "B", repeat_forward=True)
    # Inject wins in both directions: A (inject) forward, B (inject) reverse.
    edit_verdicts(items / "netgear-territory-today-navindex.yaml", "A", "B")
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args("navindex"),
                                "--junitxml=junit.xml")
    result.assert_outcomes(passed=3)
    records = junit_records(pytester.path / "junit.xml")
    record = records[f"test_question[{EDITED}]"]
    assert (record["raw_forward"], record["raw_reverse"], record["verdict"]) == \
        (None, "B", "unscored")
    # Both attempts were recorded as invalid, then the reverse call conformed.
    assert [(c["stage"], c["valid"]) for c in record["judge_calls"]] == \
        [("judge.forward", False), ("judge.forward", False), ("judge.reverse", True)]
    assert records["test_question[netgear-territory-today-navindex]"]["verdict"] == "inject"
    bound = [line for line in summary_section(result.outlines)
             if line.startswith("  document-bound:")]
    assert len(bound) == 1, bound
    # The unscored item is counted apart and left out of the rates' n.
    assert "inject wins 1/1 " in bound[0] and bound[0].endswith("unscored 1"), bound


def test_fail_on_loss_fails_the_losing_item_naming_mode_and_question(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    prepare(pytester, recording(tmp_path_factory, corpus_root).cassettes)
    edit_verdicts(pytester.path / "cassettes" / "reference" / "test_legalbench" / f"{EDITED}.yaml",
                  "A", "B")
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args("navindex"),
                                "--legalbench-fail-on-loss")
    # The failed item's record still counts: the summary is the benchmark's result.
    assert "navindex: 3 items" in summary_section(result.outlines)
    assert any("inject wins 1/2 " in line for line in summary_section(result.outlines))
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*navindex lost to inject on glufox-royalty-base (--legalbench-fail-on-loss)*",
        f"FAILED *test_question[[]{EDITED}[]]*"], consecutive=False)


def test_the_reference_server_is_stopped_after_a_failing_session(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    prepare(pytester, recording(tmp_path_factory, corpus_root).cassettes)
    noted = pytester.path / "server-url.txt"
    pytester.makepyfile(test_aaa_first=f"""
        import socket
        from urllib.parse import urlsplit

        def test_fails_first(legalbench_runner):
            url = legalbench_runner.client.config.base_url
            parts = urlsplit(url)
            socket.create_connection((parts.hostname, parts.port), timeout=2).close()
            open({str(noted)!r}, "w").write(url)  # the server was listening here
            assert False, "failing on purpose"
    """)
    # -x stops the session at the failure, before any benchmark item runs.
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args("navindex"), "-x")
    result.assert_outcomes(failed=1)
    url = noted.read_text(encoding="utf-8")
    assert url.startswith("http://127.0.0.1:")
    assert refuses(url)
    assert not [t for t in threading.enumerate() if t.name == SERVER_THREAD]


def test_inject_alone_scores_key_facts_only(pytester: pytest.Pytester,
                                            tmp_path_factory: pytest.TempPathFactory,
                                            corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    shared = bench(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    result = pytester.runpytest(*shared.args("inject"), "--junitxml=junit.xml")
    result.assert_outcomes(passed=3)
    records = junit_records(pytester.path / "junit.xml")
    assert set(records) == item_ids(["inject"])
    for record in records.values():
        assert (record["verdict"], record["mode_answer"], record["raw_forward"]) == \
            (None, None, None)
        assert record["judge_calls"] == [] and record["keyfacts_mode"] is None
        assert record["inject_answer"]
    summary = summary_section(result.outlines)
    assert "inject: 3 items" in summary and "navindex: 3 items" not in summary
    assert any(re.match(r"  key facts: inject \d/3 ", line) for line in summary)
    assert not any("document-bound" in line for line in summary)
    assert "judge none (key facts only)" in summary[1]


def test_the_keyfacts_judge_calls_no_model_and_follows_the_key_facts(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    shared = bench(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    recorded = pytester.path / "cassettes" / "reference"
    # Answers edited so the arms differ: navindex alone names the territory; on the control
    # inject declines and navindex invents a figure.
    edit_answer(recorded / "test_legalbench-inject" / "netgear-territory-today.yaml",
                "It depends on the agreement.")
    edit_answer(recorded / "test_legalbench" / "netgear-territory-today-navindex.yaml",
                "Ingram Micro may distribute in the United States and a redacted territory.")
    edit_answer(recorded / "test_legalbench-inject" / f"{CONTROL}.yaml", REFUSAL)
    edit_answer(recorded / "test_legalbench" / f"{CONTROL}-navindex.yaml",
                "NETGEAR pays 2% of purchases as market development funds.")
    result = pytester.runpytest(*shared.args("navindex"), "--legalbench-judge=keyfacts",
                                "--junitxml=junit.xml")
    result.assert_outcomes(passed=3)
    records = {r["question_id"]: r for r in junit_records(pytester.path / "junit.xml").values()}
    assert records["netgear-territory-today"]["verdict"] == "mode"
    assert records[CONTROL]["verdict"] == "inject"
    for record in records.values():
        assert record["judge"] == "keyfacts" and record["judge_calls"] == []
        inject, mode = record["keyfacts_inject"]["correct"], record["keyfacts_mode"]["correct"]
        assert record["verdict"] == ("tie" if inject == mode else "inject" if inject else "mode")
    bound = [r["verdict"] for r in records.values() if r["kind"] != "out_of_scope"]
    summary = summary_section(result.outlines)
    assert "judge none (key facts only)" in summary[1]
    assert any(line.startswith("  document-bound: ")
               and f"inject wins {bound.count('inject')}/2" in line
               and f"navindex wins {bound.count('mode')}/2" in line for line in summary), summary


def test_a_replay_runs_under_pytest_recording_s_network_block(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    result = pytester.runpytest_subprocess(
        *bench(tmp_path_factory, corpus_root).args(*MODES), "--block-network",
        "--record-mode=none", timeout=300)
    result.assert_outcomes(passed=6)
    assert summary_section(result.outlines) == summary_section(run.lines)


def test_disable_recording_calls_the_backend_and_writes_no_cassette(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester)
    result = pytester.runpytest_subprocess(
        *bench(tmp_path_factory, corpus_root).args(*MODES), "--disable-recording", timeout=300)
    result.assert_outcomes(passed=6)
    # Only the vector record prepare() seeds is there: no cassette was written.
    assert [p.name for p in (pytester.path / "cassettes").iterdir()] == ["vectors"]
    # The reference backend is deterministic: answered live, the summary is the recorded one.
    assert summary_section(result.outlines)[1:] == summary_section(run.lines)[1:]


def test_a_conftest_s_recording_hook_configures_the_benchmark_s_recorder(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    pytester.makeconftest("""
        from pathlib import Path

        def pytest_recording_configure(config, vcr):
            seen = Path(__file__).with_name("configured.txt")
            seen.write_text(",".join(vcr.match_on))
    """)
    result = pytester.runpytest_subprocess(
        *bench(tmp_path_factory, corpus_root).args("navindex"), timeout=300)
    result.assert_outcomes(passed=3)
    assert (pytester.path / "configured.txt").read_text() == "method,path,body_digest"
