"""Tests of the package as a whole: import graph, packaging."""
