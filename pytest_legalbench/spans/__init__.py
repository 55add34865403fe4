"""Span benchmarks in the LegalBench-RAG format: reading, scoring and the CUAD importer."""
