"""navagent: the answering model navigates the index with tools, then answers.

The model gets the question, the list of documents and the index tools (``index_tools``):
search (the default navembed strategy, ``navembed:closure``), reading a provision, its
references, its amendments, a defined term's definition, a document's outline. It navigates
for at most ``agent_turns`` turns and ``agent_tokens`` input tokens (``agent_loop``) and
answers from what it read. The provisions it read are the mode's provisions, under the
payload budget as a hard maximum (``agent_reading``), so evidence recall, payload and
footprint are measured as for every other mode; its answer is part of the mode
(``base.AnsweringMode``), so the runner does not answer again over them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_legalbench.llm.agent_prompt import agent_final, agent_system
from pytest_legalbench.llm.prompts import answer_user
from pytest_legalbench.modes.agent_loop import Conversing, Limits, Navigation
from pytest_legalbench.modes.base import (
    Answered,
    Corpus,
    Mode,
    ModeSettings,
    ModeUnavailable,
    Provision,
    Retrieval,
    payload_tokens,
)
from pytest_legalbench.modes.index_tools.search import Searcher
from pytest_legalbench.modes.index_tools.specs import TOOL_SPECS
from pytest_legalbench.modes.index_tools.toolbox import IndexTools
from pytest_legalbench.modes.names import DEFAULT_STRATEGY, NAVAGENT
from pytest_legalbench.modes.traits import NAVIGATED

if TYPE_CHECKING:
    from pytest_legalbench.llm.client import ModelClient

#: The stage prefix of navagent's calls: ``navagent.turnN`` per turn, ``navagent.answer``.
STAGE = NAVAGENT


def build(corpus: Corpus, settings: ModeSettings, client: ModelClient | None) -> NavagentMode:
    """navagent over ``corpus``, searching with the default navembed strategy."""
    if client is None:
        raise ValueError(f"mode {NAVAGENT!r} calls a model: pass a ModelClient")
    if not corpus.indexes:
        raise ModeUnavailable(NAVAGENT, "the corpus has no indexes to navigate")
    # Imported here: the embedding stack (torch) loads only when navagent is built.
    from pytest_legalbench.modes import navembed

    try:
        searching = navembed.build(DEFAULT_STRATEGY, corpus, settings, client)
    except ModeUnavailable as error:
        raise ModeUnavailable(NAVAGENT, f"its search ({error.mode}) is unavailable: "
                                        f"{error.reason}") from None
    return NavagentMode(corpus, settings, client, searcher_of(searching))


def searcher_of(mode: Mode) -> Searcher:
    """A search function over a retrieval mode: its provisions, best first."""
    def search(query: str) -> tuple[Provision, ...]:
        return mode.retrieve(query).provisions

    return search


class NavagentMode:
    """The tool-using navigation of one corpus (an ``AnsweringMode``)."""

    name = NAVAGENT
    traits = NAVIGATED

    def __init__(self, corpus: Corpus, settings: ModeSettings, client: Conversing,
                 searcher: Searcher | None) -> None:
        self.settings = settings
        self.client = client
        self.tools = IndexTools(corpus, searcher)
        self.system = agent_system(corpus.indexes, budget=settings.payload_budget_tokens,
                                   turns=settings.agent_turns)
        self.limits = Limits(turns=settings.agent_turns, tokens=settings.agent_tokens,
                             budget=settings.payload_budget_tokens)

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """Navigate and answer with the scanning model; the provisions read."""
        return self.answer(question, model=self.settings.scan_model,
                           question_id=question_id).retrieval

    def answer(self, question: str, *, model: str,
               question_id: str | None = None) -> Answered:
        """Navigate for ``question`` with ``model`` and answer from what was read."""
        seen = len(self.client.ledger)
        navigation = Navigation(self.client, self.tools, TOOL_SPECS, self.system, self.limits,
                                stage=STAGE)
        done = navigation.run(answer_user(question), model=model, question_id=question_id,
                              final=agent_final)
        payload = payload_tokens(done.reading)
        errors = sum(count for _, count in done.dropped)
        notes = ((f"navigated {done.turns} turns with {done.tool_calls} tool calls "
                  f"({errors} answered with an error); read {len(done.reading)} provisions, "
                  f"{payload} of {self.limits.budget} budget tokens; stopped: {done.stopped}"),)
        calls = tuple(call for call in self.client.ledger.calls[seen:]
                      if call.stage.startswith(f"{STAGE}.") and call.question_id == question_id)
        retrieval = Retrieval(mode=self.name, provisions=done.reading, payload_tokens=payload,
                              scan_tokens=done.navigation_tokens, calls=calls,
                              dropped=done.dropped, notes=notes)
        return Answered(retrieval, done.completion)
