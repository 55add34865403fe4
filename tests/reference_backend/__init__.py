"""Tests of the model-free reference server."""
