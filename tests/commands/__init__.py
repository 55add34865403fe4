"""Tests of the legalbench command."""
