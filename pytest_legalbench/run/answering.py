"""The answering call of every mode: the question over what the mode shows the model.

What that is, each mode says (``modes.traits``): the provisions it retrieved, answered in a
call of their own; the whole corpus as a cached prefix (the baseline); or nothing more,
because the mode answered as it navigated (``AnsweringMode``), in which case ``respond``
takes its answer instead of answering again.
"""

from __future__ import annotations

from pytest_legalbench.llm.call_types import Completion, SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.prompts import answer_system, answer_user, provisions_block
from pytest_legalbench.modes.base import AnsweringMode, Mode, Retrieval
from pytest_legalbench.modes.inject_context import InjectContext

#: Output room of an answer.
ANSWER_MAX_TOKENS = 2048


def answer_stage(mode: str) -> str:
    """The ledger stage of a mode's answering call: its family's name and ``.answer``."""
    return f"{mode.partition(':')[0]}.answer"


def answer(retrieval: Retrieval, question: str, client: ModelClient, model: str, *,
           question_id: str | None = None, max_tokens: int = ANSWER_MAX_TOKENS) -> Completion:
    """Answer ``question`` from ``retrieval``'s provisions alone, in their order."""
    block = provisions_block((p.doc_id, p.node_id, p.clause, p.path, p.text)
                             for p in retrieval.provisions)
    return client.complete(
        stage=answer_stage(retrieval.mode), model=model, question_id=question_id,
        max_tokens=max_tokens, system=[SystemBlock(answer_system())],
        messages=[{"role": "user", "content": answer_user(question, block)}])


def respond(mode: Mode, question: str, client: ModelClient, model: str, *,
            question_id: str | None = None) -> tuple[Retrieval, Completion]:
    """Retrieve for ``question`` with ``mode`` and answer with ``model`` as the mode's traits
    say: over its provisions, over the whole corpus, or the mode's own answer."""
    shown = mode.traits.shown
    if shown == "answer":
        if not isinstance(mode, AnsweringMode):
            raise TypeError(f"mode {mode.name!r} says it answers as it navigates, but has no "
                            f"answer() method")
        answered = mode.answer(question, model=model, question_id=question_id)
        return answered.retrieval, answered.completion
    retrieval = mode.retrieve(question, question_id=question_id)
    if shown == "corpus":
        context = getattr(mode, "context", None)
        if not isinstance(context, InjectContext):
            raise TypeError(f"mode {mode.name!r} says it shows the whole corpus, but has no "
                            f"context to show")
        return retrieval, answer_over_corpus(client, context, question, model=model,
                                             stage=answer_stage(retrieval.mode),
                                             question_id=question_id)
    return retrieval, answer(retrieval, question, client, model, question_id=question_id)


def answer_over_corpus(client: ModelClient, context: InjectContext, question: str, *,
                       model: str, stage: str, question_id: str | None = None,
                       max_tokens: int = ANSWER_MAX_TOKENS) -> Completion:
    """Ask one question over the whole corpus; the corpus block is marked for caching."""
    return client.complete(
        stage=stage, model=model, question_id=question_id, max_tokens=max_tokens,
        system=[SystemBlock(context.instructions), SystemBlock(context.corpus, cache=True)],
        messages=[{"role": "user", "content": answer_user(question)}],
    )
