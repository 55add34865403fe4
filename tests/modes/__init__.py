"""Tests of retrieval modes."""
