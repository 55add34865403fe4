"""The plan before spending, wired into a benchmark session: ``--legalbench-plan`` prints the
plan of the collected items and runs none of them; ``--legalbench-max-cost`` checks the plan
before the run's first call and stops the run when its expected cost is over the limit.

The plan covers the whole run: every collected benchmark item not already finished by the
run being resumed. Under xdist every worker collects the same items, so each works out the
same plan and stops alike; the controller prints it once (``plugin.session_notes``). The
planning itself is ``run.cost_plan``'s.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import pytest

from pytest_legalbench.gandr.settings import with_overrides
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.plugin.journal_hooks import JOURNAL_KEY
from pytest_legalbench.plugin.session_notes import add_notes, note_lines
from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.run.items import Case

if TYPE_CHECKING:
    from pytest_legalbench.run.cost_plan import Plan

#: The summary section a stopping plan is printed in.
SECTION = "plan"


def session_cases(items: Iterable[pytest.Item], finished: Iterable[str] = ()) -> list[Case]:
    """The benchmark cases among ``items``, less those already ``finished``."""
    done = set(finished)
    found = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        for param in (callspec.params.values() if callspec is not None else ()):
            if isinstance(param, Case) and param.id not in done:
                found.append(param)
    return found


def plan_of(cases: Sequence[Case], settings: Settings, documents: Sequence[Document],
            indexes: Sequence[DocumentIndex]) -> Plan:
    """The plan of ``cases`` under the session's settings, at the packaged price card, with
    the output lengths earlier runs on the same backend and models measured, if any."""
    from pytest_legalbench.llm.pricing import load_price_card
    from pytest_legalbench.run.cost_plan import make_plan
    from pytest_legalbench.run.output_memory import MemoryKey, planned_backend, recall
    from pytest_legalbench.run.plan_calls import PlanSelection

    questions = tuple({case.question.id: case.question for case in cases}.values())
    selection = PlanSelection(
        questions=questions, modes=settings.modes, documents=tuple(documents),
        indexes=tuple(indexes), mode_settings=settings.mode_settings,
        answer_model=settings.answer_model, judge_model=settings.judge_model,
        judge=settings.judge, repeats=settings.repeats, gandr=with_overrides(settings.gandr),
        items=tuple((case.question.id, case.mode) for case in cases))
    key = MemoryKey(planned_backend(settings.backend, os.environ, settings.base_url,
                                    settings.server_kind),
                    settings.answer_model, settings.judge_model)
    return make_plan(selection, load_price_card(), recall(settings.cache_dir, key))


class PlanOnly:
    """``--legalbench-plan``: print the plan of the collected items and run nothing."""

    def __init__(self, settings: Settings, finished: Iterable[str] = ()) -> None:
        self.settings = settings
        self.finished = tuple(finished)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        from pytest_legalbench.navindex.corpus import build_indexes
        from pytest_legalbench.plugin.preflight_hooks import session_documents

        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        cases = session_cases(session.items, self.finished)
        if not cases:
            lines = ["legalbench plan: no benchmark item to plan"]
        else:
            documents = session_documents(session.config, self.settings)
            indexes = build_indexes(documents, cache_dir=self.settings.cache_dir)
            done = f"legalbench plan: {len(cases)} item(s) planned, none run (--legalbench-plan)"
            lines = ["", *plan_of(cases, self.settings, documents, indexes).lines(), "", done]
        for line in lines:
            if reporter is not None:
                reporter.write_line(line)
        return True


def check_plan(request: pytest.FixtureRequest, settings: Settings,
               documents: Sequence[Document], indexes: Sequence[DocumentIndex]) -> None:
    """Raise PlanOverLimit, the plan noted for the summary, when the whole run's plan costs
    more than ``--legalbench-max-cost`` (through batches in a batch run)."""
    from pytest_legalbench.run.cost_plan import PlanOverLimit, over_limit

    if settings.max_cost is None:
        return
    journal = request.config.stash.get(JOURNAL_KEY, None)
    cases = session_cases(request.session.items,
                          journal.resumed if journal is not None else ())
    if not cases:
        return
    plan = plan_of(cases, settings, documents, indexes)
    try:
        over_limit(plan, settings.max_cost, batch=settings.batch)
    except PlanOverLimit as error:
        add_notes(request.config, SECTION, str(error).splitlines())
        raise


def stop_lines(config: pytest.Config) -> list[str]:
    """The plan a run stopped on, for the summary (once, however many workers stopped)."""
    return note_lines(config, SECTION, shared=True)
