"""Tests of slow end-to-end runs (skipped unless --slow)."""
