"""What navagent sends: the answering rules, the navigation instructions with the document list,
and the turn that asks for the answer when a limit is reached.

The instructions are templates in ``prompts/``: ``navagent_system.txt`` and
``navagent_final.txt``; the answering rules are the ones every answer follows
(``answer_system.txt``).
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_legalbench.llm.call_types import SystemBlock
from pytest_legalbench.llm.prompts import answer_system, load_prompt
from pytest_legalbench.llm.scan_prompt import document_line
from pytest_legalbench.navindex.node import DocumentIndex

#: Documents the system prompt lists; a larger corpus is listed in part (list_documents
#: pages through the rest).
LISTED_DOCUMENTS = 60


def document_listing(indexes: Sequence[DocumentIndex], most: int = LISTED_DOCUMENTS) -> str:
    """One line per document, at most ``most``, then a line saying how many were left out."""
    lines = [document_line(index) for index in indexes[:most]]
    if len(indexes) > most:
        lines.append(f"... and {len(indexes) - most} more documents: list_documents lists them")
    return "\n".join(lines)


def agent_system(indexes: Sequence[DocumentIndex], *, budget: int,
                 turns: int) -> tuple[SystemBlock, SystemBlock]:
    """The system prompt: the answering rules, then the navigation instructions and the
    document list, marked for caching (the same for every question of a corpus)."""
    navigation = load_prompt("navagent_system").render(
        budget=f"{budget:,}", turns=str(turns), documents=document_listing(indexes))
    return SystemBlock(answer_system()), SystemBlock(navigation.strip(), cache=True)


def agent_final(reason: str) -> str:
    """The text that ends the last tool results when a limit stops the navigation."""
    return load_prompt("navagent_final").render(reason=reason).strip()
