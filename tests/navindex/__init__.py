"""Tests of the structured index."""
