"""User-facing errors print once: one message naming the file and the fix, with no chained
exception or traceback after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_sessions import bench, isolate_environment, prepare


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def test_a_missing_cassette_is_one_message_naming_the_file_and_the_command(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    prepare(pytester)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a-key-for-replay-only")
    result = pytester.runpytest(*bench(tmp_path_factory, corpus_root).args("navindex"),
                                "--legalbench-backend=anthropic",
                                "--legalbench-server-kind=generic", "-rN",
                                "-k", "glufox-royalty-base")
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    # The item's cassette is the first a call needs (inject's nests in it).
    missing = pytester.path / "cassettes" / "anthropic" / "test_legalbench"
    assert output.count(f"no cassette at {missing / 'glufox-royalty-base-navindex.yaml'}") == 1
    assert "record it by running with --record-mode=once" in output
    assert "During handling of the above exception" not in output
    assert "Traceback" not in output and "vcr" not in output


def test_a_missing_corpus_for_a_fixture_is_one_message(pytester: pytest.Pytester,
                                                       tmp_path: Path) -> None:
    pytester.makepyfile("def test_docs(legalbench_documents):\n    pass\n")
    result = pytester.runpytest(f"--legalbench-corpus-dir={tmp_path}",
                                f"--legalbench-cache-dir={tmp_path / 'cache'}", "-rN")
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert output.count("legalbench corpus: ") == 1
    assert "During handling of the above exception" not in output
