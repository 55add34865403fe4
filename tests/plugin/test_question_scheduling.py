"""Under xdist a question's benchmark items go to one worker (so inject answers it once there),
other tests keep xdist's own scheduling, and local workers split the cores between them."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_legalbench.plugin.question_scheduling import (
    QuestionScopes,
    QuestionsOrLoad,
    question_of,
)
from pytest_legalbench.plugin.xdist_hooks import worker_threads
from tests.support.plugin_sessions import MODES, QUESTION_IDS, bench, prepare, recording

FILE = "benchmarks/test_legalbench.py::test_question"


@pytest.mark.parametrize(("nodeid", "question"), [
    (f"{FILE}[glufox-license-expiry-navembed:closure]", "glufox-license-expiry"),
    (f"{FILE}[glufox-license-expiry-navembed]", "glufox-license-expiry"),
    (f"{FILE}[q-1-inject]", "q-1"),
    (f"{FILE}[stonepoint-sofr-navembed:embed+xref]", "stonepoint-sofr"),
    (f"{FILE}[navindex]", None),  # a mode with no question before it
    (f"{FILE}[q-1-navagent]", None),  # not a mode of this run
    ("tests/test_x.py::test_y", None),
    ("tests/test_x.py::test_y[3-inject-case]", None),
])
def test_question_of_reads_the_item_id_against_the_runs_modes(nodeid: str,
                                                               question: str | None) -> None:
    modes = ("navembed", "navembed:closure", "navembed:embed+xref", "inject", "navindex")
    assert question_of(nodeid, modes) == question


@pytest.mark.parametrize(("cpus", "workers", "threads"),
                         [(2, 2, 1), (16, 4, 4), (2, 3, 1), (8, 0, 8), (7, 2, 3)])
def test_local_workers_share_the_cores(cpus: int, workers: int, threads: int) -> None:
    assert worker_threads(cpus, workers) == threads


class _Node:
    """What a scheduler sees of a worker: it is sent item indices and may be shut down."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def send_runtest_all(self) -> None:
        raise AssertionError("not expected with two nodes and many items")

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduled(pytester: pytest.Pytester, collection: list[str]) -> tuple[object, list[_Node]]:
    config = pytester.parseconfig("--tx", "2*popen")
    scheduler = QuestionsOrLoad(config, None, ("inject", "navindex"))
    nodes = [_Node("gw0"), _Node("gw1")]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, collection)
    assert scheduler.collection_is_completed
    scheduler.schedule()
    return scheduler._chosen, nodes


def test_benchmark_items_are_scheduled_a_question_at_a_time(pytester: pytest.Pytester) -> None:
    collection = [f"{FILE}[q{n}-{mode}]" for n in range(6) for mode in ("inject", "navindex")]
    chosen, nodes = _scheduled(pytester, collection)
    assert isinstance(chosen, QuestionScopes)
    for node in nodes:
        questions = {question_of(collection[i], ("inject", "navindex")) for i in node.sent}
        # Whole questions only: both of a question's items went to this node.
        assert node.sent and len(node.sent) == 2 * len(questions)


def test_other_tests_keep_xdists_load_scheduling(pytester: pytest.Pytester) -> None:
    from xdist.scheduler import LoadScheduling

    collection = [f"tests/test_x.py::test_{n}" for n in range(40)]
    chosen, nodes = _scheduled(pytester, collection)
    assert type(chosen) is LoadScheduling
    assert sorted(nodes[0].sent + nodes[1].sent) == sorted(set(nodes[0].sent + nodes[1].sent))


def test_under_xdist_each_question_runs_on_one_worker(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    serial = recording(tmp_path_factory, corpus_root)
    prepare(pytester, serial.cassettes)
    # Four workers for six items: xdist's load scheduling then hands items out one at a time,
    # round robin, so a question's two items would land on two workers without the plugin.
    result = pytester.runpytest_subprocess(*bench(tmp_path_factory, corpus_root).args(*MODES),
                                           "-n", "4", "-v", timeout=300)
    result.assert_outcomes(passed=len(QUESTION_IDS) * len(MODES))
    workers: dict[str, set[str]] = {}
    for line in result.outlines:
        found = re.search(r"\[(gw\d+)\].*PASSED .*test_question\[(.+)\]", line)
        if found:
            question = question_of(f"x[{found.group(2)}]", MODES)
            assert question in QUESTION_IDS
            workers.setdefault(question, set()).add(found.group(1))
    assert set(workers) == set(QUESTION_IDS)
    assert all(len(ran_on) == 1 for ran_on in workers.values()), workers
