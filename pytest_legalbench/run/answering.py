"""The answering call of every mode: the question over what the mode retrieved.

A mode that answers as it navigates (``AnsweringMode``: navagent) brings its own answer;
``respond`` takes it from the mode instead of answering again over its provisions.
"""

from __future__ import annotations

from pytest_legalbench.llm.call_types import Completion, SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.prompts import answer_system, answer_user, provisions_block
from pytest_legalbench.modes.base import AnsweringMode, Mode, Retrieval
from pytest_legalbench.modes.inject_context import InjectContext
from pytest_legalbench.modes.names import NAVAGENT

#: Output room of an answer.
ANSWER_MAX_TOKENS = 2048


def answer_stage(mode: str) -> str:
    """The ledger stage of a mode's answering call: ``inject.answer``, ``navembed.answer``, ..."""
    return f"{mode.partition(':')[0]}.answer"


def answer(retrieval: Retrieval, question: str, client: ModelClient, model: str, *,
           question_id: str | None = None, inject_context: InjectContext | None = None,
           max_tokens: int = ANSWER_MAX_TOKENS) -> Completion:
    """Answer ``question`` from ``retrieval``'s provisions alone; inject answers over its
    whole-document context (``InjectMode.context``), which must then be given."""
    if retrieval.mode == NAVAGENT:
        raise ValueError("navagent answers as it navigates: take its answer with respond(), "
                         "not a second answer over its provisions")
    if retrieval.mode == "inject":
        if inject_context is None:
            raise ValueError("an inject answer needs the inject context (InjectMode.context): "
                             "its documents are sent whole, with their titles")
        return answer_with_inject(client, inject_context, question, model=model,
                                  question_id=question_id, max_tokens=max_tokens)
    block = provisions_block((p.doc_id, p.node_id, p.clause, p.path, p.text)
                             for p in retrieval.provisions)
    return client.complete(
        stage=answer_stage(retrieval.mode), model=model, question_id=question_id,
        max_tokens=max_tokens, system=[SystemBlock(answer_system())],
        messages=[{"role": "user", "content": answer_user(question, block)}])


def respond(mode: Mode, question: str, client: ModelClient, model: str, *,
            question_id: str | None = None) -> tuple[Retrieval, Completion]:
    """Retrieve for ``question`` with ``mode`` and answer with ``model``: a mode that answers
    as it navigates gives its own answer, any other is answered from what it retrieved."""
    if isinstance(mode, AnsweringMode):
        answered = mode.answer(question, model=model, question_id=question_id)
        return answered.retrieval, answered.completion
    retrieval = mode.retrieve(question, question_id=question_id)
    return retrieval, answer(retrieval, question, client, model, question_id=question_id,
                             inject_context=getattr(mode, "context", None))


def answer_with_inject(client: ModelClient, context: InjectContext, question: str, *,
                       model: str, question_id: str | None = None,
                       max_tokens: int = ANSWER_MAX_TOKENS) -> Completion:
    """Ask one question over the whole corpus; the corpus block is marked for caching."""
    return client.complete(
        stage="inject.answer", model=model, question_id=question_id, max_tokens=max_tokens,
        system=[SystemBlock(context.instructions), SystemBlock(context.corpus, cache=True)],
        messages=[{"role": "user", "content": answer_user(question)}],
    )
