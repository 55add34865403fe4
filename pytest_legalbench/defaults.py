"""The constants every stage shares: models, judges, modes, backends, profiles, limits.

A leaf: it imports nothing from the package, so any module may read it without pulling in
a stage (the import-graph test keeps it that way).
"""

from __future__ import annotations

#: The published study's answering and judging models.
DEFAULT_ANSWER_MODEL = "claude-sonnet-4-6"
DEFAULT_JUDGE_MODEL = "claude-opus-4-7"

#: The judging protocols: against a reference answer (the headline), preference (no
#: reference), forced (no ties; analysed with the exact binomial test), and key facts only
#: (no judge model: the verdict follows the model-free key-fact scores).
JUDGES = ("reference-anchored", "preference", "forced", "keyfacts")
DEFAULT_JUDGE = "reference-anchored"

#: Seeded repeats per GANDR item (Stable & Correct@k).
DEFAULT_REPEATS = 5

#: What a run benchmarks when no --mode is given.
DEFAULT_MODES = ("navembed", "navindex")

#: Where model calls can go: the embedded deterministic server, or Claude (or any server
#: speaking the Messages API, given by base URL).
BACKENDS = ("reference", "anthropic")

#: The corpus profile used when nothing else is selected.
DEFAULT_PROFILE = "transactions"

#: Environment variables naming the cache and the corpus mirror folders.
CACHE_ENV = "LEGALBENCH_CACHE_DIR"
CORPUS_ENV = "LEGALBENCH_CORPUS_DIR"

#: The hard cap on nodes one navindex scan may select (SPEC §4).
MAX_SCAN_NODES = 10

#: The longest passage (characters) a GANDR claim audit cites, unless configured otherwise.
DEFAULT_PASSAGE_CHARS = 2000

#: Context window assumed for the answering model unless configured otherwise.
DEFAULT_CONTEXT_WINDOW = 200_000

#: What inject reads: the whole corpus, or only the transaction set a question is about
#: (its documents and every document filed in the same set); ``auto`` takes the corpus when
#: it fits the context window and the question's set when it does not.
INJECT_SCOPES = ("auto", "corpus", "set")
DEFAULT_INJECT_SCOPE = "auto"

#: Seconds one model call may take before it counts as timed out (and is retried).
DEFAULT_TIMEOUT_S = 120.0

#: How sentence embeddings are computed: the model as shipped, on torch; the same with its
#: matrix products in bfloat16 (about twice as fast on CPUs with native bfloat16); or the same
#: weights exported to ONNX with int8 matrix products. Vectors differ slightly between them,
#: so each is cached apart.
EMBEDDING_BACKENDS = ("torch", "torch-bf16", "onnx-int8")
DEFAULT_EMBEDDING_BACKEND = "torch"

#: The largest retrieval unit (estimated tokens): a longer provision is represented by its
#: children, and a leaf longer than this by parts of it (``modes.unit_parts``).
MAX_UNIT_TOKENS = 1200
