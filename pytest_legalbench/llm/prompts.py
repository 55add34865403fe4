"""Prompt templates from the packaged ``prompts/`` folder, and the wire format they share.

Every template names its version on its first line; rendering is strict, so a renamed or
forgotten placeholder fails loudly instead of sending a half-filled prompt.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape

from pytest_legalbench.defaults import MAX_SCAN_NODES
from pytest_legalbench.files.locations import prompts_dir

#: The one sentence an answer consists of when the instruments are silent.
REFUSAL = "The provided documents do not answer this question."

_HEADER = re.compile(r"#: prompt (?P<name>[a-z_]+), version (?P<version>\d+)\n")


class PromptError(ValueError):
    """A template that is missing, malformed, or rendered with the wrong values."""


@dataclass(frozen=True)
class Prompt:
    """One template: its name, version, text and the placeholders it expects."""

    name: str
    version: int
    template: str

    @property
    def placeholders(self) -> frozenset[str]:
        """The ``$name`` placeholders of the template."""
        found = string.Template(self.template).get_identifiers()
        return frozenset(found)

    def render(self, **values: str) -> str:
        """Fill every placeholder; a missing or unexpected value is an error naming the file."""
        missing = self.placeholders - set(values)
        unused = set(values) - self.placeholders
        if missing or unused:
            raise PromptError(f"prompts/{self.name}.txt: missing values {sorted(missing)}, "
                              f"unexpected values {sorted(unused)}")
        return string.Template(self.template).substitute(values)


@functools.cache
def load_prompt(name: str) -> Prompt:
    """Read ``prompts/<name>.txt`` and check its header."""
    path = prompts_dir() / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PromptError(f"{path}: cannot read the prompt ({error.strerror})") from None
    header = _HEADER.match(text)
    if header is None or header.group("name") != name:
        raise PromptError(f"{path}: the first line must be '#: prompt {name}, version N'")
    return Prompt(name, int(header.group("version")), text[header.end():])


def document_block(documents: Iterable[tuple[str, str, str]]) -> str:
    """Wrap whole documents ``(doc_id, title, text)`` for the cached corpus block."""
    parts = [f'<document doc_id="{escape(doc_id)}" title="{escape(title)}">\n{text}\n</document>'
             for doc_id, title, text in documents]
    return "<documents>\n" + "\n\n".join(parts) + "\n</documents>"


def provisions_block(provisions: Iterable[tuple[str, str, str, str, str]]) -> str:
    """Wrap provisions ``(doc_id, node_id, clause, path, text)`` for an answer from retrieved
    text; ``path`` (the headings a provision sits under) is shown when there is one."""
    parts = [f'<provision doc_id="{escape(doc_id)}" node_id="{escape(node_id)}" '
             f'clause="{escape(clause)}"' + (f' path="{escape(path)}"' if path else "")
             + f'>\n{text}\n</provision>'
             for doc_id, node_id, clause, path, text in provisions]
    return "<provisions>\n" + "\n\n".join(parts) + "\n</provisions>\n"


def answer_system() -> str:
    """The system instructions of every answering call."""
    return load_prompt("answer_system").render(refusal=REFUSAL)


def answer_user(question: str, context: str = "") -> str:
    """The user turn of an answering call: optional provisions, then the question."""
    return load_prompt("answer_user").render(context=context, question=question.strip())


def judge_user(question: str, answer_a: str, answer_b: str, reference: str | None) -> str:
    """The user turn of a judging call; the reference block is left out when there is none."""
    block = f"<reference>\n{reference.strip()}\n</reference>\n" if reference else ""
    return load_prompt("judge_user").render(question=question.strip(), reference=block,
                                            answer_a=answer_a.strip(),
                                            answer_b=answer_b.strip())


def scan_system() -> str:
    """The system instructions of a navindex scan."""
    return load_prompt("scan_system").render(max_nodes=str(MAX_SCAN_NODES))


def scan_documents_system(max_documents: int) -> str:
    """The system instructions of the document stage of a two-stage navindex scan."""
    return load_prompt("scan_documents_system").render(max_documents=str(max_documents)).strip()
