"""Finding the tagged parts of a prompt: documents, provisions, question and answers.

The tags are the ones ``pytest_legalbench.llm.prompts`` writes: attribute values HTML-escaped, the
body verbatim between a newline after the opening tag and a newline before the closing one.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

_ATTRIBUTE = re.compile(r'([A-Za-z_][\w-]*)="([^"]*)"')


@dataclass(frozen=True)
class TaggedDocument:
    """A whole document from an inject prompt."""

    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class TaggedProvision:
    """One retrieved provision with the clause reference the prompt gives it."""

    doc_id: str
    node_id: str
    clause: str
    text: str


def elements(text: str, tag: str) -> list[tuple[dict[str, str], str]]:
    """Every ``<tag attrs>body</tag>`` in ``text``: its unescaped attributes and its body."""
    pattern = re.compile(rf"<{tag}((?:\s+[A-Za-z_][\w-]*=\"[^\"]*\")*)\s*>\n?(.*?)\n?</{tag}>",
                         re.DOTALL)
    found = []
    for match in pattern.finditer(text):
        attributes = {name: html.unescape(value)
                      for name, value in _ATTRIBUTE.findall(match.group(1))}
        found.append((attributes, match.group(2)))
    return found


def find_documents(text: str) -> tuple[TaggedDocument, ...]:
    """The ``<document doc_id=... title=...>`` blocks of ``text``, in order."""
    return tuple(TaggedDocument(attrs.get("doc_id", ""), attrs.get("title", ""), body)
                 for attrs, body in elements(text, "document"))


def find_provisions(text: str) -> tuple[TaggedProvision, ...]:
    """The ``<provision doc_id=... node_id=... clause=...>`` blocks of ``text``, in order."""
    return tuple(TaggedProvision(attrs.get("doc_id", ""), attrs.get("node_id", ""),
                                 attrs.get("clause", ""), body)
                 for attrs, body in elements(text, "provision"))


def tagged_text(text: str, tag: str) -> str | None:
    """The stripped body of the last ``<tag>`` element of ``text``, or None when absent."""
    found = elements(text, tag)
    return found[-1][1].strip() if found else None


def question_of(user_text: str) -> str:
    """The question of an answering turn: its ``<question>`` block, else the whole turn."""
    tagged = tagged_text(user_text, "question")
    if tagged is not None:
        return tagged
    # Without tags the turn is the question, once any provisions are taken out of it.
    return re.sub(r"<provisions>.*?</provisions>", " ", user_text, flags=re.DOTALL).strip()
