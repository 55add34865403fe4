"""A retriever of your own, in a few lines: the document's paragraphs, ranked by how many words
they share with the question. Replace it with yours (a vector store, a search service)."""

import re

from pytest_legalbench import Passage

#: How many paragraphs to return, best first.
TOP = 4


def words(text):
    """The lower-cased words of ``text`` longer than three letters (so "the", "and", "any"
    do not count), numbers and amounts kept whole."""
    return {w for w in re.findall(r"[a-z0-9][a-z0-9$,.%-]*", text.lower()) if len(w) > 3}


def best_paragraphs(question, documents, top=TOP):
    """``(doc_id, paragraph)`` pairs of ``documents`` (``(doc_id, text)`` pairs), those that
    share the most words with ``question`` first; none that shares no word."""
    asked = words(question)
    scored = []
    for doc_id, text in documents:
        for paragraph in text.split("\n\n"):
            shared = len(asked & words(paragraph))
            if shared and paragraph.strip():
                scored.append((shared, doc_id, paragraph.strip()))
    scored.sort(key=lambda found: -found[0])
    return [(doc_id, paragraph) for _, doc_id, paragraph in scored[:top]]


class Paragraphs:
    """The retriever the conftest registers: built once per run with the corpus."""

    def __init__(self, corpus):
        self.documents = [(d.doc_id, d.text) for d in corpus.documents]

    def retrieve(self, question):
        return [Passage(doc_id=doc_id, text=paragraph)
                for doc_id, paragraph in best_paragraphs(question.text, self.documents)]
