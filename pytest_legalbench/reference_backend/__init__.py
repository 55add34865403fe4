"""The embedded reference backend: a deterministic, model-free Messages API server.

It answers extractively from the documents or provisions in a prompt, judges by key facts
through the forced ``record_verdict`` tool, navigates an index by word overlap, plays every
GANDR role by rule (CREAC drafts and the baselines' answers quoted from the passages, claim
labels by word overlap, rubric, Critic and both judges; choices varied by a seed sent in the
request body), and emulates prompt-cache accounting, so the whole product runs with no API key
and no network. Everything it writes says what it is.
"""

from __future__ import annotations

from pytest_legalbench.reference_backend.identity import (
    BACKEND_HEADER,
    BACKEND_NOTE,
    REFERENCE_MODEL,
)
from pytest_legalbench.reference_backend.server import ReferenceBackend

__all__ = ["BACKEND_HEADER", "BACKEND_NOTE", "REFERENCE_MODEL", "ReferenceBackend"]
