"""Prompt templates, shipped inside the package as ``pytest_legalbench.prompts``."""
