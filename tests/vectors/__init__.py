"""Tests of embeddings, dense and BM25 indexes."""
