"""Embeddings and lexical scoring: models loaded by path, dense and BM25 indexes, the vector
cache and deterministic ranking."""
