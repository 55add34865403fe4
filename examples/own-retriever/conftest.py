"""Registers the retriever in paragraphs.py as the mode ``paragraphs``:
``pytest --mode=paragraphs -n 2``."""

from paragraphs import Paragraphs


def pytest_legalbench_modes():
    return {"paragraphs": Paragraphs}
