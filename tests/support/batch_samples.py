"""What the Message Batches tests share: a clock the backend and the batch client both read
(waits advance it, so nothing sleeps), and answering requests over small provisions shaped as
the product sends them (a cached system block, a forced verdict tool)."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_legalbench.llm.batch_requests import BatchRequest, completion_params, custom_id
from pytest_legalbench.llm.call_types import SystemBlock, ToolSpec
from pytest_legalbench.llm.prompts import answer_user, judge_user, load_prompt, provisions_block

RENTS = (900, 1250, 740, 1800, 2100, 615, 1330, 995, 1410, 860, 1075, 1990)

VERDICT = ToolSpec(
    name="record_verdict", description="Record which answer is better, or a tie.",
    input_schema={"type": "object",
                  "properties": {"verdict": {"type": "string", "enum": ["A", "B", "tie"]},
                                 "reason": {"type": "string"}},
                  "required": ["verdict", "reason"]})


class FakeClock:
    """Seconds that pass only when a wait is asked for: ``sleep`` advances ``now``."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass at once."""
        self.sleeps.append(seconds)
        self.now += seconds


def lease_messages(rent: int) -> list[dict[str, object]]:
    """The user turn of an answering call over one lease's rent clause."""
    block = provisions_block([(f"lease-{rent}", f"lease-{rent}:1.1", "1.1", "Lease > Rent",
                               (f"1.1 Rent. The Tenant shall pay a rent of {rent} euros a "
                               f"month, due on the first day of each month."))])
    return [{"role": "user", "content": answer_user("What rent does the Tenant pay?", block)}]


SYSTEM = [SystemBlock("You answer questions about leases from the provisions given."),
          SystemBlock("Cite every clause you rely on as [doc_id] Clause X.", cache=True)]


def answer_params(rent: int) -> dict[str, object]:
    """The params of an answering call, as ModelClient.complete sends them."""
    return completion_params(model="claude-test", system=SYSTEM, messages=lease_messages(rent),
                             max_tokens=300)


def answering_requests(rents: Sequence[int] = RENTS) -> list[BatchRequest]:
    """One answering request per rent, with custom ids as a run would name them."""
    return [BatchRequest(custom_id(f"lease-{rent}", "navembed", "answer"), answer_params(rent))
            for rent in rents]


def judging_request(rent: int) -> BatchRequest:
    """A forced-verdict request comparing two answers about one rent."""
    messages = [{"role": "user", "content": judge_user(
        "What rent does the Tenant pay?", f"The rent is {rent} euros a month [lease] Clause 1.1.",
        "The provided documents do not answer this question.", f"{rent} euros a month")}]
    params = completion_params(model="claude-test",
                               system=[SystemBlock(load_prompt("judge_system").render())],
                               messages=messages, max_tokens=512, tool=VERDICT)
    return BatchRequest(custom_id(f"lease-{rent}", "navembed", "judge", "forward"), params)
