"""How a user's retriever fails one item: it raised, hung past the timeout, or returned
something malformed. Each becomes one ``RetrieverFailed`` line naming the mode, the question
and what was wrong; the item fails and the run goes on."""

from __future__ import annotations

#: The longest description of a failure kept in its line (a long body or message is cut).
MAX_PROBLEM_CHARS = 300


def one_line(text: str, limit: int = MAX_PROBLEM_CHARS) -> str:
    """``text`` on one line (whitespace runs as one space), cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 3].rstrip() + "..."


class RetrieverProblem(Exception):
    """What went wrong inside a retriever of this package (an HTTP service's answer, a line
    missing from a retrieval file), described whole: its message is the problem."""


class RetrieverFailed(Exception):
    """A retriever that failed one question; the message is one line."""

    def __init__(self, mode: str, question_id: str | None, problem: str) -> None:
        self.mode = mode
        self.question_id = question_id
        self.problem = one_line(problem)
        asked = f"question {question_id!r}" if question_id else "the question"
        super().__init__(f"mode {mode!r}, {asked}: {self.problem}")

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from the fields, so it crosses process boundaries (xdist, multiprocessing).
        return (type(self), (self.mode, self.question_id, self.problem))
