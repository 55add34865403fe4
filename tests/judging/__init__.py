"""Tests of the paired judge, key facts and pairing rules."""
