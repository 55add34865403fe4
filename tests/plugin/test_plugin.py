"""The pytest plugin, exercised through pytester (in-process and under xdist)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)


@pytest.fixture(autouse=True)
def absolute_corpus_setting(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    """pytester runs in a temp dir, where a relative $LEGALBENCH_CORPUS_DIR would not resolve."""
    monkeypatch.setenv("LEGALBENCH_CORPUS_DIR", str(corpus_root))


@pytest.fixture
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("legalbench-cache")


def test_help_lists_the_option_group(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines([
        "*legal retrieval benchmarks (pytest-legalbench)*",
        "*--legalbench-profile=*",
        "*--legalbench-corpus-dir=*",
        "*--legalbench-cache-dir=*",
        "*--legalbench-backend=*",
        "*--legalbench-timeout=*",
        "*--legalbench-answer-model=*",
        "*--legalbench-top-k=*",
        "*--legalbench-payload-budget=*",
        "*--legalbench-scan-budget=*",
        "*--legalbench-definitions-per-node=*",
        "*--legalbench-embedding-model=*",
        "*--legalbench-cross-encoder=*",
        "*--legalbench-context-window=*",
    ])
    result.stdout.fnmatch_lines(["*legalbench_profile*"])  # the ini keys


def test_retrieval_settings_reach_the_benchmark_s_modes(pytester: pytest.Pytester,
                                                       corpus_root: Path, cache: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEGALBENCH_PAYLOAD_BUDGET", "2500")
    pytester.makeini("[pytest]\nlegalbench_definitions_per_node = 1\n")
    pytester.makepyfile("""
        def test_settings(legalbench_runner):
            qa = legalbench_runner.runner_for("navindex")
            retrieval = qa.settings.mode_settings
            assert (retrieval.k, retrieval.payload_budget_tokens) == (4, 2500)
            assert retrieval.definitions_per_node == 1
            assert qa.mode("navindex").settings is retrieval
    """)
    result = pytester.runpytest(f"--legalbench-corpus-dir={corpus_root}",
                                f"--legalbench-cache-dir={cache}", "--legalbench-top-k=4")
    result.assert_outcomes(passed=1)


def test_the_call_timeout_reaches_the_session_s_client(pytester: pytest.Pytester,
                                                       corpus_root: Path, cache: Path) -> None:
    pytester.makepyfile("""
        def test_timeout(legalbench_runner):
            assert legalbench_runner.client.config.timeout_s == 7.5
    """)
    result = pytester.runpytest(f"--legalbench-corpus-dir={corpus_root}",
                                f"--legalbench-cache-dir={cache}", "--legalbench-timeout=7.5")
    result.assert_outcomes(passed=1)


def test_bad_values_fail_at_startup(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--legalbench-profile=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--legalbench-profile='nope' is not a known profile*"])


def test_claude_without_a_key_fails_at_startup(pytester: pytest.Pytester,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = pytester.runpytest("--legalbench-backend=anthropic")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*backend 'anthropic' was requested but ANTHROPIC_API_KEY*"])
    assert "Traceback" not in result.stderr.str()


def test_ini_keys_configure_the_session(pytester: pytest.Pytester, corpus_root: Path,
                                        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEGALBENCH_CORPUS_DIR")  # the environment would win over the ini file
    pytester.makeini(f"[pytest]\nlegalbench_profile = transactions\n"
                     f"legalbench_corpus_dir = {corpus_root}\nlegalbench_cache_dir = {cache}\n")
    pytester.makepyfile("""
        def test_settings(legalbench_settings):
            assert legalbench_settings.profile == "transactions"
    """)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines([f"legalbench: profile transactions, corpus {corpus_root}*"])
    result.assert_outcomes(passed=1)


INDEX_TEST = """
    def test_index(legalbench_index, legalbench_documents):
        assert len(legalbench_index) == len(legalbench_documents) == 10
        assert sum(len(i.nodes) for i in legalbench_index) > 1000

    def test_again(legalbench_index):
        assert {i.doc_id for i in legalbench_index} >= {"netgear-01_distributor_agreement_1996"}
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_session_fixtures_build_the_index(pytester: pytest.Pytester, corpus_root: Path,
                                          cache: Path, workers: list[str]) -> None:
    pytester.makepyfile(INDEX_TEST)
    result = pytester.runpytest(f"--legalbench-corpus-dir={corpus_root}",
                                f"--legalbench-cache-dir={cache}", *workers)
    result.assert_outcomes(passed=2)
    # Built once and cached by content hash: one entry per document.
    assert len(list((cache / "navindex").glob("v*/*/*.index.json"))) == 10


def test_a_missing_corpus_fails_the_fixture_with_the_reason(pytester: pytest.Pytester,
                                                            tmp_path: Path, cache: Path) -> None:
    pytester.makepyfile(INDEX_TEST)
    result = pytester.runpytest(f"--legalbench-corpus-dir={tmp_path}",
                                f"--legalbench-cache-dir={cache}")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*legalbench corpus:*"])


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    probe = ("import sys, pytest_legalbench.plugin.hooks; "
             "heavy = [m for m in ('torch', 'sentence_transformers', 'anthropic', 'numpy', "
             "'scipy', 'vcr', 'pydantic', 'pytest_legalbench.navindex.outline', "
             "'pytest_legalbench.navindex.build') "
             "if m in sys.modules]; print(heavy)")
    output = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert output == "[]"
