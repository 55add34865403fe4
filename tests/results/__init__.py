"""Tests of records, summaries, reports and comparisons."""
