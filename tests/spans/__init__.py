"""Tests of span benchmarks and the CUAD importer."""
