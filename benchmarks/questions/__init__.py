"""Scored question sets, shipped inside the package as ``pytest_legalbench.question_sets``."""
