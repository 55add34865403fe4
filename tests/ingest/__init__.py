"""Tests of documents, manifests, decoding and question files."""
