"""A retriever that is a service: one POST per question to ``http(s)://HOST:PORT/PATH``.

The request is JSON, ``{"id", "question", "documents", "budget_tokens"}``: the question's id
and text, the ids of every document of the corpus under test (the service searches those,
as every mode does; never the question's own scope) and the payload budget. The answer is
JSON, ``{"passages": [...]}``, each passage as ``passage_json`` reads it, best first.

Each attempt may take ``timeout_s`` (``--legalbench-timeout``). A 429, a 5xx, a timeout or a
connection that fails is tried again with exponential backoff and full jitter (a
``Retry-After`` honoured up to the cap); anything else (another status, a body that is not
the JSON above) is a ``RetrieverProblem`` naming the status and an excerpt of the body.

The request carries only its own headers (content type, accept, user agent): no API key,
no ``Authorization``, no cookie, no proxy, and redirects are not followed, so no credential
of the run can reach the service. It is sent with ``http.client`` directly, which adds
nothing of its own but ``Host``, ``Accept-Encoding: identity`` and ``Content-Length``.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import ssl
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

from pytest_legalbench.llm.retries import RetryPolicy, parse_retry_after
from pytest_legalbench.modes.passage_json import PassageFormatError, passages_from_json
from pytest_legalbench.modes.retriever_api import Passage, RetrieverCorpus, RetrieverQuestion
from pytest_legalbench.modes.retriever_failures import RetrieverProblem, one_line

#: Attempts per question and their backoff: a first try and three more, waits of up to
#: 0.5, 1 and 2 seconds (a Retry-After up to 10).
HTTP_RETRIES = RetryPolicy(max_attempts=4, budget_s=float("inf"), base_s=0.5, cap_s=10.0)
#: Who is asking, as the service sees it.
USER_AGENT = "pytest-legalbench (retrieval benchmark)"
#: Characters of a response body quoted in an error.
BODY_EXCERPT = 200


def check_url(url: str) -> str:
    """``url`` if it can name a retrieval service (http or https, with a host); ValueError
    saying what is wrong otherwise."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{url!r} carries credentials; a retrieval service is sent none")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as error:
        raise ValueError(f"{url!r}: {error}") from None
    return url


@dataclass(frozen=True)
class _Answer:
    status: int
    reason: str
    body: bytes
    headers: dict[str, str]


class HttpRetriever:
    """Passages from a retrieval service, one POST per question."""

    def __init__(self, url: str, corpus: RetrieverCorpus, *, timeout_s: float,
                 policy: RetryPolicy = HTTP_RETRIES,
                 sleep: Callable[[float], None] = time.sleep,
                 draw: Callable[[], float] = random.random) -> None:
        self.url = check_url(url)
        self.corpus = corpus
        self.timeout_s = timeout_s
        self.policy = policy
        self.sleep = sleep
        self.draw = draw
        parts = urllib.parse.urlsplit(url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    def request_body(self, question: RetrieverQuestion) -> bytes:
        """The JSON a question is sent as."""
        return json.dumps({"id": question.id, "question": question.text,
                           "documents": list(self.corpus.doc_ids),
                           "budget_tokens": self.corpus.settings.payload_budget_tokens},
                          ensure_ascii=False).encode("utf-8")

    def retrieve(self, question: RetrieverQuestion) -> tuple[Passage, ...]:
        """POST the question, retrying what is worth retrying; the passages it answered."""
        body = self.request_body(question)
        for attempt in range(1, self.policy.max_attempts + 1):
            try:
                answer = self._post(body)
            except (OSError, http.client.HTTPException) as error:
                problem = f"{self.url}: {_connection_problem(error, self.timeout_s)}"
                retry_after = None
            else:
                if 200 <= answer.status < 300:
                    return self._passages(answer)
                problem = (f"{self.url} answered {answer.status} {answer.reason}: "
                           f"{_excerpt(answer.body)}")
                if answer.status != 429 and not 500 <= answer.status < 600:
                    raise RetrieverProblem(problem + " (not retried)")
                retry_after = parse_retry_after(answer.headers, time.time())
            gave_up = self.policy.give_up(attempt, 0.0, problem)
            if gave_up is not None:
                raise RetrieverProblem(gave_up)
            self.sleep(self.policy.delay(attempt - 1, self.draw(), retry_after))
        raise AssertionError("unreachable: the last attempt gives up")  # pragma: no cover

    def _post(self, body: bytes) -> _Answer:
        connection: http.client.HTTPConnection
        if self._https:
            connection = http.client.HTTPSConnection(self._host, self._port,
                                                     timeout=self.timeout_s,
                                                     context=ssl.create_default_context())
        else:
            connection = http.client.HTTPConnection(self._host, self._port,
                                                    timeout=self.timeout_s)
        try:
            connection.request("POST", self._target, body=body, headers={
                "Content-Type": "application/json", "Accept": "application/json",
                "User-Agent": USER_AGENT})
            response = connection.getresponse()
            return _Answer(response.status, response.reason, response.read(),
                           {k.lower(): v for k, v in response.getheaders()})
        finally:
            connection.close()

    def _passages(self, answer: _Answer) -> tuple[Passage, ...]:
        try:
            data = json.loads(answer.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise RetrieverProblem(f"{self.url} answered {answer.status} with a body that is "
                                   f"not JSON: {_excerpt(answer.body)}") from None
        if not isinstance(data, dict) or "passages" not in data:
            raise RetrieverProblem(f'{self.url} answered JSON without "passages": '
                                   f"{_excerpt(answer.body)}")
        try:
            return passages_from_json(data["passages"], f"{self.url}'s answer")
        except PassageFormatError as error:
            raise RetrieverProblem(str(error)) from None


def _connection_problem(error: BaseException, timeout_s: float) -> str:
    if isinstance(error, socket.timeout | TimeoutError):
        return f"no answer within the timeout of {timeout_s:g} s (--legalbench-timeout)"
    return f"the connection failed ({type(error).__name__}: {one_line(str(error), 120)})"


def _excerpt(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace")
    return repr(one_line(text, BODY_EXCERPT)) if text.strip() else "(empty body)"
