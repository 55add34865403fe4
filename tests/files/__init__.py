"""Tests of atomic writes and build locks."""
