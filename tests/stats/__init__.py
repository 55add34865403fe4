"""Tests of exact statistics and agreement."""
