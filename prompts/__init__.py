"""Prompt templates, shipped inside the package as ``pytest_legalbench.prompt_templates``."""
