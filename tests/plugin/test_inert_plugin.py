"""Installed, the plugin stays out of the way of a project that asks nothing of it.

Each session runs in a subprocess with the plugin loaded from its entry point, as in a user's
environment. The project is one plain test module beside a conftest that records what the
plugin would have changed: which xdist scheduler ran, whether a process froze its heap for
exit, whether BLAS thread variables were set.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: Values that would fail a benchmark run's startup.
BAD_ENVIRONMENT = {"LEGALBENCH_PAYLOAD_BUDGET": "abc", "LEGALBENCH_BACKEND": "nonsense",
                   "LEGALBENCH_TOP_K": "-3", "LEGALBENCH_MAX_COST": "lots"}
#: Thread-pool variables the plugin sets for the xdist workers of a benchmark run.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

WITNESS_CONFTEST = """
import atexit
import gc
import os
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def _process() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _write_freeze_count(when: str) -> None:
    (HERE / f"frozen-{_process()}-{when}.txt").write_text(str(gc.get_freeze_count()))


# Registered before any plugin's pytest_configure, so it runs after their exit handlers.
atexit.register(_write_freeze_count, "exit")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # After every sessionfinish hook: a worker's process ends without running atexit.
    _write_freeze_count("unconfigure")


@pytest.hookimpl(wrapper=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    scheduler = yield
    (HERE / "scheduler.txt").write_text(type(scheduler).__module__ + "." +
                                        type(scheduler).__name__)
    return scheduler
"""

PLAIN_TESTS = """
import os

THREAD_VARIABLES = {variables!r}


def test_arithmetic():
    assert 6 * 7 == 42


def test_no_thread_limits_were_set():
    assert [name for name in THREAD_VARIABLES if name in os.environ] == []
"""

BENCHMARK_MODULE = """
def test_question(legalbench_item):
    assert legalbench_item.problems() == ()
"""


@pytest.fixture
def unrelated_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                      tmp_path: Path) -> pytest.Pytester:
    """A project with no legalbench settings, run in an environment full of bad ones."""
    # (This suite's own xdist workers set PYTEST_XDIST_*, which the witness reads.)
    for name in (*THREAD_VARIABLES, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                 "LEGALBENCH_CORPUS_DIR", "LEGALBENCH_CACHE_DIR", "PYTEST_XDIST_WORKER",
                 "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    for name, value in BAD_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    # Where a journal or an index would go if the plugin opened one.
    monkeypatch.setenv("LEGALBENCH_CACHE_DIR", str(tmp_path / "legalbench-cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(WITNESS_CONFTEST)
    pytester.makepyfile(test_plain=PLAIN_TESTS.format(variables=THREAD_VARIABLES))
    return pytester


def _legalbench_lines(result: pytest.RunResult) -> list[str]:
    """Output lines the plugin would print (its header, summary or errors); the list of
    installed plugins is pytest's own line."""
    return [line for line in (*result.outlines, *result.errlines)
            if "legalbench" in line.lower() and not line.startswith("plugins:")]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_an_unrelated_project_runs_as_if_the_plugin_were_absent(
        unrelated_project: pytest.Pytester, tmp_path: Path, workers: list[str]) -> None:
    result = unrelated_project.runpytest_subprocess("-W", "error", *workers)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=2)
    output = (result.stdout.str() + result.stderr.str()).lower()
    assert "warning" not in output
    assert _legalbench_lines(result) == []
    assert "plugins:" in result.stdout.str() and "legalbench" in result.stdout.str(), \
        "the plugin was not installed, so this test proves nothing"
    # No settings were read, so no cache folder was made for a journal or an index.
    assert not (tmp_path / "legalbench-cache").exists()
    assert not (tmp_path / "xdg-cache").exists()
    # No process froze its heap for a quick exit.
    counts = {path.name: path.read_text() for path in unrelated_project.path.glob("frozen-*")}
    processes = {"main", "gw0", "gw1"} if workers else {"main"}
    assert {name.split("-")[1] for name in counts} == processes
    assert set(counts.values()) == {"0"}, counts
    scheduler = unrelated_project.path / "scheduler.txt"
    if workers:
        assert scheduler.read_text() == "xdist.scheduler.load.LoadScheduling"
    else:
        assert not scheduler.exists()


def test_a_benchmark_run_asked_for_on_the_command_line_fails_at_startup(
        unrelated_project: pytest.Pytester) -> None:
    unrelated_project.makepyfile(test_benchmark=BENCHMARK_MODULE)
    result = unrelated_project.runpytest_subprocess("--legalbench-profile=transactions")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert errors == [("ERROR: LEGALBENCH_BACKEND='nonsense' is not a backend; choose from "
                      "reference, anthropic")], result.errlines
    assert result.outlines == []


def test_a_benchmark_run_asked_for_in_the_ini_file_fails_at_startup(
        unrelated_project: pytest.Pytester) -> None:
    unrelated_project.makeini("[pytest]\nlegalbench_judge = preference\n")
    result = unrelated_project.runpytest_subprocess("-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.errlines if "LEGALBENCH_BACKEND='nonsense'" in line] \
        == [("ERROR: LEGALBENCH_BACKEND='nonsense' is not a backend; choose from reference, "
            "anthropic")]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_benchmark_items_collected_without_an_option_fail_with_the_setting_s_error(
        unrelated_project: pytest.Pytester, workers: list[str]) -> None:
    unrelated_project.makepyfile(test_benchmark=BENCHMARK_MODULE)
    result = unrelated_project.runpytest_subprocess(*workers)
    output = result.stdout.str()
    # One collection error naming the variable (xdist reports its workers' identical errors
    # once), with no traceback; pytest stops a plain session at it, xdist runs the rest.
    message = ("legalbench settings: LEGALBENCH_BACKEND='nonsense' is not a backend; choose "
               "from reference, anthropic")
    # Counted above the short summary, which repeats the message in full where pytest does not
    # truncate it (with CI set in the environment).
    assert output.split("short test summary info")[0].count(message) == 1, output
    assert "Traceback" not in output and "raise " not in output
    if workers:
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.assert_outcomes(passed=2, errors=1)
    else:
        assert result.ret == pytest.ExitCode.INTERRUPTED
        result.assert_outcomes(errors=1)
