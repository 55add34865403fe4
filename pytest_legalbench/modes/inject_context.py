"""The inject baseline: every document of the profile in one cached block, then the question."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.defaults import DEFAULT_CONTEXT_WINDOW
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.llm.prompts import answer_system, document_block
from pytest_legalbench.tokens import estimate_tokens

#: Room kept free in the window for the instructions, the question and the answer.
ANSWER_HEADROOM = 4_096


class DoesNotFit(ValueError):
    """The corpus is larger than the context window: inject refuses rather than truncate."""


@dataclass(frozen=True)
class InjectContext:
    """The two system blocks of an inject call: instructions, then the cached corpus."""

    instructions: str
    corpus: str

    @property
    def corpus_tokens(self) -> int:
        """Estimated tokens of the corpus block."""
        return estimate_tokens(self.corpus)


def inject_context(documents: Sequence[Document],
                   context_window: int = DEFAULT_CONTEXT_WINDOW) -> InjectContext:
    """Build the inject context, or raise DoesNotFit naming the sizes."""
    corpus = document_block((d.doc_id, d.title, d.text) for d in documents)
    context = InjectContext(answer_system(), corpus)
    needed = context.corpus_tokens + estimate_tokens(context.instructions) + ANSWER_HEADROOM
    if needed > context_window:
        raise DoesNotFit(f"inject does not fit: {len(documents)} documents need about {needed} "
                         f"tokens, the context window is {context_window}")
    return context

