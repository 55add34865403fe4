"""A user's conftest registering a LangChain and a LlamaIndex retriever as modes, one line
each; the tests import it, and copy it whole into pytester projects as their conftest.py.

Both retrievers are the frameworks' own in-memory vector stores over paragraphs, with a small
deterministic embedding (hashed word counts) so they run offline.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

from langchain_core.documents import Document as LangChainDocument
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.node_parser import SentenceSplitter

from pytest_legalbench import langchain_mode, llamaindex_mode

DIMENSIONS = 256


def hashed_words(text: str) -> list[float]:
    """Counts of the text's words hashed into a fixed number of slots, unit length."""
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class WordEmbeddings(Embeddings):
    """LangChain's side of the embedding."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [hashed_words(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return hashed_words(text)


class WordEmbedding(BaseEmbedding):
    """LlamaIndex's side of the embedding."""

    def _get_query_embedding(self, query: str) -> list[float]:
        return hashed_words(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return hashed_words(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return hashed_words(query)


def langchain_retriever(documents: list[Any]) -> Any:
    """Paragraphs (each with its start_index, as LangChain's splitters add it) in
    LangChain's in-memory vector store."""
    pieces = []
    for document in documents:
        text, offset = document.page_content, 0
        for paragraph in text.split("\n\n"):
            start = text.index(paragraph, offset)
            offset = start + len(paragraph)
            if paragraph.strip():
                pieces.append(LangChainDocument(
                    page_content=paragraph, metadata={**document.metadata, "start_index": start}))
    store = InMemoryVectorStore(WordEmbeddings())
    store.add_documents(pieces)
    return store.as_retriever(search_kwargs={"k": 3})


def llamaindex_retriever(documents: list[Any]) -> Any:
    """Sentence-split chunks in LlamaIndex's in-memory vector index."""
    index = VectorStoreIndex.from_documents(
        documents, embed_model=WordEmbedding(),
        transformations=[SentenceSplitter(chunk_size=128, chunk_overlap=0)])
    return index.as_retriever(similarity_top_k=3)


def pytest_legalbench_modes() -> dict[str, object]:
    return {"lc": langchain_mode(langchain_retriever),
            "li": llamaindex_mode(llamaindex_retriever)}
