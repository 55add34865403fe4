"""The words GANDR shares with whoever answers its prompts: forced tool names, rubric
dimensions, audit and CREAC block labels, audit labels and the citation marker syntax.

This module is a leaf (standard library only) so that a stand-in for the model, such as the
reference backend, can speak the same wire format without importing GANDR's own parsers.
"""

from __future__ import annotations

import re

# --- forced tools ---------------------------------------------------------------------------

CLAIM_AUDIT_TOOL = "record_claim_audit"
RUBRIC_TOOL = "record_rubric_scores"
CRITIC_TOOL = "record_critic_decision"
CORRECTNESS_TOOL = "record_correctness"
EQUIVALENCE_TOOL = "record_equivalence"

#: The six rubric dimensions, in the order reports list them.
RUBRIC_DIMENSIONS: tuple[str, ...] = ("AFL", "AC", "CI", "DTC", "CEA", "FS")
#: The Critic's two decisions.
DECISIONS: tuple[str, ...] = ("PASS", "REWRITE")

# --- the claim audit ------------------------------------------------------------------------

SUPPORTED = "SUPPORTED"
PARTIAL = "PARTIAL"
UNSUPPORTED = "UNSUPPORTED"
MISCITED = "MISCITED"
#: The audit's labels: the same tuple as ``stats.agreement.AUDIT_LABELS`` (a test holds the
#: two equal), repeated because stats comes before GANDR and a model's stand-in reads only
#: this module.
AUDIT_LABELS: tuple[str, ...] = (SUPPORTED, PARTIAL, UNSUPPORTED, MISCITED)
#: The memo blocks whose claims the audit checks.
AUDIT_BLOCKS: tuple[str, ...] = ("EXPLANATION", "APPLICATION")

# --- the CREAC memo -------------------------------------------------------------------------

#: The five blocks of a memo, in order; each is written as its label in square brackets
#: opening a line ("[RULE]").
BLOCK_LABELS: tuple[str, ...] = ("CONCLUSION", "RULE", "EXPLANATION", "APPLICATION", "CONCLUSION")

# --- citation markers -----------------------------------------------------------------------

#: A marker as the prompts ask for it: ``{cite: <id>}``, or ``{cite: <id>; <id>}`` for several.
CITE_OPEN = "{cite:"
CITE_CLOSE = "}"
#: Separates the ids of one marker.
CITE_ID_SEPARATOR = ";"
#: An optional prefix of a cited id that names no document ("corpus:doc:2.1" is "doc:2.1").
CORPUS_PREFIX = "corpus:"
#: The tolerated form of one marker: whitespace inside the braces and around the colon,
#: ``cite`` in any case; group ``ids`` holds everything after the colon.
CITE_MARKER = re.compile(r"\{\s*cite\s*:(?P<ids>[^{}]*)\}", re.IGNORECASE)
