"""Tests of the pytest plugin, driven through pytester."""
