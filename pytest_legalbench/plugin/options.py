"""The table of settings: each one's pytest flag and ini key, its ``legalbench`` flag, its
environment variable and its help. The plugin registers its options from here and the
``legalbench`` command its flags; ``plugin.settings`` resolves the values.

Pure: no pytest import.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_legalbench.defaults import (
    CACHE_ENV,
    CORPUS_ENV,
    DEFAULT_ANSWER_MODEL,
    DEFAULT_INJECT_SCOPE,
    DEFAULT_JUDGE_MODEL,
    DEFAULT_PROFILE,
    DEFAULT_REPEATS,
    DEFAULT_TIMEOUT_S,
    EMBEDDING_BACKENDS,
    INJECT_SCOPES,
)
from pytest_legalbench.llm.server_identity import AUTO, KIND_CHOICES
from pytest_legalbench.modes.base import ModeSettings


@dataclass(frozen=True)
class Option:
    """One setting: its pytest flag (and ini key), its ``legalbench`` flag, its environment
    variable and its help."""

    name: str
    flag: str
    env: str | None
    help: str
    cli: str | None = None
    """The ``legalbench`` command's flag for it; None when the command has no such option."""
    switch: bool = False
    """A flag that takes no value (given or not); its ini key is a bool."""
    in_ini: bool = True
    """Whether an ini file may set it (not so for what belongs to one run only)."""
    metavar: str | None = None
    """The value's name in help texts; None: the ini key in capitals."""

    @property
    def ini(self) -> str:
        """The ini key mirroring the flag (``--legalbench-profile`` -> ``legalbench_profile``)."""
        return self.flag.lstrip("-").replace("-", "_")

    def shown(self, *, cli: bool) -> str:
        """The option as the user wrote it, for error messages."""
        return (self.cli if cli and self.cli else self.flag)

    def help_text(self) -> str:
        """The help of a flag: what it means, then the environment variable that sets it too."""
        return f"{self.help}. Env: ${self.env}" if self.env else self.help


def option(name: str) -> Option:
    """The option called ``name`` (a ``Settings`` or ``ModeSettings`` field)."""
    return next(o for o in (*OPTIONS, *RETRIEVAL_OPTIONS) if o.name == name)


_DEFAULTS = ModeSettings()

OPTIONS = (
    Option("profile", "--legalbench-profile", "LEGALBENCH_PROFILE",
           f"corpus profile to benchmark. Default: {DEFAULT_PROFILE}"),
    Option("docs", "--legalbench-docs", "LEGALBENCH_DOCS",
           "folder of .txt/.htm/.html documents to benchmark instead of a profile (with "
           "--legalbench-questions about them)"),
    Option("corpus_dir", "--legalbench-corpus-dir", CORPUS_ENV,
           "folder holding the corpus mirror (CI: ../shared/corpus)", cli="--corpus-dir"),
    Option("cache_dir", "--legalbench-cache-dir", CACHE_ENV,
           "cache folder for built indexes, vectors and downloads. Default: "
           "$XDG_CACHE_HOME/pytest-legalbench", cli="--cache-dir"),
    Option("backend", "--legalbench-backend", "LEGALBENCH_BACKEND",
           "model backend: 'reference' (embedded, deterministic, no key, no network) or "
           "'anthropic' (Claude, or any Messages-API server at the base URL). "
           "Default: anthropic when ANTHROPIC_API_KEY is set, else reference", cli="--backend"),
    Option("base_url", "--legalbench-base-url", "ANTHROPIC_BASE_URL",
           "base URL of a Messages-API server (vLLM, llama.cpp, LiteLLM)", cli="--base-url"),
    Option("server_kind", "--legalbench-server-kind", "LEGALBENCH_SERVER_KIND",
           f"kind of the Messages-API server at the base URL, for its capability rules: "
           f"{', '.join(KIND_CHOICES)}. Default: {AUTO} (asked once, GET /v1/models)",
           cli="--server-kind"),
    Option("timeout", "--legalbench-timeout", "LEGALBENCH_TIMEOUT",
           f"seconds one model call may take before it counts as timed out and is retried "
           f"(raise it for a slow local server); also what one call of a retriever of your "
           f"own may take. Default: {DEFAULT_TIMEOUT_S:g}",
           cli="--timeout"),
    Option("answer_model", "--legalbench-answer-model", "LEGALBENCH_ANSWER_MODEL",
           f"model answering the questions (and scanning for navindex and titles). "
           f"Default: {DEFAULT_ANSWER_MODEL}", cli="--model"),
    Option("judge_model", "--legalbench-judge-model", "LEGALBENCH_JUDGE_MODEL",
           f"model judging the answers. Default: {DEFAULT_JUDGE_MODEL}"),
    Option("judge", "--legalbench-judge", "LEGALBENCH_JUDGE",
           "judging protocol: reference-anchored (default), preference, forced (no ties; "
           "exact binomial test) or keyfacts (no judge model). Under reference-anchored and "
           "forced, a question without a reference answer is judged by preference"),
    Option("questions", "--legalbench-questions", None,
           "folder of question YAML files. Default: the profile's packaged question set"),
    Option("report", "--legalbench-report", None,
           "folder for results.json, report.md, verdicts.csv, cost.png, recall_payload.png "
           "and report.html, one self-contained page of the summary and every item (GANDR: "
           "gandr-results.json and its audit traces, gandr-traces/*.jsonl)"),
    Option("faults", "--legalbench-faults", "LEGALBENCH_FAULTS",
           "faults the reference backend injects, as KIND:RATE,... (kinds: 429, 529, 500, "
           "timeout, reset, short, malformed, bad-text, bad-block; seed:N, max:N, "
           "stall:SECONDS), e.g. 429:0.2,529:0.1,timeout:0.05; needs --disable-recording"),
    Option("max_cost", "--legalbench-max-cost", "LEGALBENCH_MAX_COST",
           "dollars the run may spend at the price card's rates: it stops cleanly before a "
           "call that could take it past them (summary and journal kept)"),
    Option("repeats", "--legalbench-repeats", "LEGALBENCH_REPEATS",
           f"seeded repeats per item of the GANDR systems, for Stable & Correct@k. "
           f"Default: {DEFAULT_REPEATS}"),
    Option("fail_on_loss", "--legalbench-fail-on-loss", None,
           "fail an item whose mode loses to inject (losses are only reported otherwise)",
           switch=True),
    Option("skip_invalid", "--legalbench-skip-invalid", None,
           "run the valid questions when some question files are invalid or quote evidence "
           "their documents lack; each invalid file is reported as an error item", switch=True),
    Option("resume", "--legalbench-resume", None,
           "resume the run whose journal is in DIR (a report folder, or the run folder an "
           "interrupted run printed): items it finished under the same settings are not run "
           "again", in_ini=False, metavar="DIR"),
    Option("sample", "--legalbench-sample", "LEGALBENCH_SAMPLE",
           "run a deterministic sample of N questions instead of the whole set, stratified by "
           "question category (and control or not) and spread over contract families; the "
           "same N always draws the same questions. Default: every question", cli="--sample",
           metavar="N"),
    # Live runs at scale (issue 31): the Message Batches API and the plan before spending.
    Option("batch", "--legalbench-batch", "LEGALBENCH_BATCH",
           "send the run's model calls through the Message Batches API (half price, no "
           "per-minute limits), in phases by dependency, before the items run; the batch ids "
           "go to the run journal first, so --legalbench-resume collects them instead of "
           "paying again", cli="--batch", switch=True),
    Option("batch_fallback", "--legalbench-batch-fallback", "LEGALBENCH_BATCH_FALLBACK",
           "call a batch request that errored transiently or expired interactively instead of "
           "resubmitting it in a new batch", cli="--batch-fallback", switch=True),
    Option("batch_poll", "--legalbench-batch-poll", "LEGALBENCH_BATCH_POLL",
           "seconds between two looks at a running batch. Default: 30 (0.2 on the embedded "
           "reference backend)", cli="--batch-poll", metavar="SECONDS"),
    Option("journal_relay", "--legalbench-journal-relay", "LEGALBENCH_JOURNAL_RELAY",
           "HOST:PORT the controller listens on for the batch lines of xdist workers on other "
           "hosts (--tx socket=... or ssh=...), which cannot write this host's run journal "
           "themselves; the workers connect to the same HOST:PORT, so for ssh hosts forward it "
           "(RemoteForward). Default: 127.0.0.1:0 (loopback, any free port)",
           metavar="HOST:PORT"),
    Option("plan", "--legalbench-plan", None,
           "print the run's plan (calls per stage, estimated tokens, dollars interactive and "
           "batch, with and without caching, per mode) and run nothing", switch=True,
           in_ini=False),
)

#: The retrieval settings (``ModeSettings`` fields), shared by every mode.
RETRIEVAL_OPTIONS = (
    Option("k", "--legalbench-top-k", "LEGALBENCH_TOP_K",
           f"provisions an embedding-ranked navembed strategy returns. Default: {_DEFAULTS.k}",
           cli="--top-k"),
    Option("payload_budget_tokens", "--legalbench-payload-budget", "LEGALBENCH_PAYLOAD_BUDGET",
           f"hard maximum of every mode's payload (the provisions it returns) in tokens; a "
           f"retrieval of your own over it is cut in rank order and the cut reported: raise "
           f"it to keep more. Default: {_DEFAULTS.payload_budget_tokens}", cli="--payload-budget"),
    Option("scan_budget_tokens", "--legalbench-scan-budget", "LEGALBENCH_SCAN_BUDGET",
           f"index size in tokens above which navindex and titles first pick documents "
           f"(two-stage scan). Default: {_DEFAULTS.scan_budget_tokens}", cli="--scan-budget"),
    Option("definitions_per_node", "--legalbench-definitions-per-node",
           "LEGALBENCH_DEFINITIONS_PER_NODE",
           f"definitions a chosen provision brings per clause it holds (navindex's fetch and "
           f"the closure strategies), the least widely used first. Default: {_DEFAULTS.definitions_per_node}", cli="--definitions-per-node"),
    Option("embedding_model", "--legalbench-embedding-model", "LEGALBENCH_EMBEDDING_MODEL",
           "folder of a sentence-transformers model (loaded by path, never downloaded). "
           "Default: the packaged all-MiniLM-L6-v2", cli="--embedding-model"),
    Option("embedding_backend", "--legalbench-embedding-backend",
           "LEGALBENCH_EMBEDDING_BACKEND",
           f"how the embedding model runs: {', '.join(EMBEDDING_BACKENDS)} (torch-bf16: "
           f"matrix products in bfloat16, fast on CPUs with native bfloat16; onnx-int8: the "
           f"same weights exported once to ONNX with int8 matrix products, cached; needs "
           f"onnxruntime and onnx). Default: {_DEFAULTS.embedding_backend}",
           cli="--embedding-backend"),
    Option("cross_encoder", "--legalbench-cross-encoder", "LEGALBENCH_CROSS_ENCODER",
           "folder of a cross-encoder for navembed:rerank and GANDR's B3 (none ships; "
           "without one both are reported unavailable)", cli="--cross-encoder"),
    Option("context_window", "--legalbench-context-window", "LEGALBENCH_CONTEXT_WINDOW",
           f"context window of the answering model in tokens (inject refuses a corpus that "
           f"does not fit). Default: {_DEFAULTS.context_window}", cli="--context-window"),
    Option("agent_turns", "--legalbench-agent-turns", "LEGALBENCH_AGENT_TURNS",
           f"navigation turns navagent's model may take before it must answer. "
           f"Default: {_DEFAULTS.agent_turns}", cli="--agent-turns"),
    Option("agent_tokens", "--legalbench-agent-tokens", "LEGALBENCH_AGENT_TOKENS",
           f"input tokens navagent's navigation turns may attend in total (the answering "
           f"turn comes on top). Default: {_DEFAULTS.agent_tokens}", cli="--agent-tokens"),
    Option("inject_scope", "--legalbench-inject-scope", "LEGALBENCH_INJECT_SCOPE",
           f"what inject reads for a question: {', '.join(INJECT_SCOPES)} (corpus: every "
           f"document of the profile; set: the documents of the question's transaction set; "
           f"auto: the corpus when it fits the context window, else the set). The retrieval "
           f"modes always search the whole profile. Default: {DEFAULT_INJECT_SCOPE}",
           cli="--inject-scope", metavar="SCOPE"),
)

#: The settings that choose where model calls go, in the order the ``legalbench`` command
#: lists them.
BACKEND_OPTIONS = tuple(option for option in OPTIONS
                        if option.name in ("backend", "base_url", "server_kind", "timeout"))

#: The MCP servers ``--mode=mcp:NAME`` may name: a repeatable flag (of the plugin, and of the
#: ``legalbench`` command as ``--mcp-server``) and an ini key of one server per line.
MCP_SERVER_FLAG = "--legalbench-mcp-server"
MCP_SERVER_CLI = "--mcp-server"
MCP_SERVER_DEST = "legalbench_mcp_servers"
MCP_SERVER_INI = "legalbench_mcp_servers"
MCP_SERVER_HELP = (
    "an MCP server that --mode=mcp:NAME navigates with the answering model, as NAME=COMMAND "
    "(started over stdio; split like shell words, run without a shell, given no credential "
    "of the run) or NAME=http://HOST:PORT/PATH (streamable HTTP); repeat for several")
MCP_SERVER_INI_HELP = ("MCP servers for --mode=mcp:NAME when no --legalbench-mcp-server is "
                       "given, one per line: NAME = COMMAND or NAME = URL")
