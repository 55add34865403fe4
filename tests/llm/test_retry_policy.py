"""The retry policy: retry-after parsing, backoff with full jitter, and the two bounds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.llm.retries import RetryPolicy, parse_retry_after


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "2"}, now=0) == 2.0
    assert parse_retry_after({"retry-after": "0.25"}, now=0) == 0.25
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}, now=0) == 0.25
    assert parse_retry_after({"retry-after": "Thu, 01 Jan 1970 00:01:40 GMT"}, now=40) == 60
    assert parse_retry_after({"retry-after": "-3"}, now=0) == 0.0


def test_parse_retry_after_ignores_what_it_cannot_read() -> None:
    assert parse_retry_after({}, now=0) is None
    assert parse_retry_after({"retry-after": "soon"}, now=0) is None
    assert parse_retry_after({"retry-after": "nan"}, now=0) is None
    assert parse_retry_after({"retry-after-ms": "Thu, 01 Jan 1970 00:01:40 GMT"}, now=0) is None
    assert parse_retry_after({"retry-after": "Mon, 01 Jan 99999999 00:00:00 GMT"}, now=0) is None
    # An unreadable retry-after-ms does not hide a readable retry-after.
    assert parse_retry_after({"retry-after-ms": "x", "retry-after": "7"}, now=0) == 7.0


def test_backoff_doubles_from_the_base_up_to_the_cap() -> None:
    policy = RetryPolicy(base_s=1.0, cap_s=10.0)
    assert [policy.delay(retry, 0.999999, None) for retry in range(6)] == [
        0.999999, 1.999998, 3.999996, 7.999992, 9.99999, 9.99999]
    assert policy.delay(3, 0.0, None) == 0.0


def test_give_up_on_attempts_then_budget() -> None:
    policy = RetryPolicy(max_attempts=3, budget_s=10.0)
    assert policy.give_up(1, 9.5, "busy") is None
    assert policy.give_up(3, 0.0, "busy") == "gave up after 3 attempts: busy"
    assert policy.give_up(2, 10.5, "busy") == (
        "gave up after 2 attempts, the retry budget of 10 s would be exceeded: busy")


@given(retry=st.integers(0, 10_000), draw=st.floats(0, 1, exclude_max=True),
       base=st.floats(0.001, 10), cap=st.floats(0.001, 100),
       after=st.none() | st.floats(0, 1e12))
def test_delay_never_exceeds_the_cap(retry: int, draw: float, base: float, cap: float,
                                     after: float | None) -> None:
    delay = RetryPolicy(base_s=base, cap_s=cap).delay(retry, draw, after)
    assert 0 <= delay <= cap
    if after is None:
        assert delay <= base * 2.0 ** min(retry, 64)
    else:
        assert delay == min(after, cap)


@given(attempts=st.integers(1, 20), budget=st.floats(0.1, 1000), delays=st.lists(
    st.floats(0, 100), min_size=1, max_size=30))
def test_the_loop_the_policy_drives_is_bounded(attempts: int, budget: float,
                                               delays: list[float]) -> None:
    policy = RetryPolicy(max_attempts=attempts, budget_s=budget)
    spent, attempt = 0.0, 1
    for delay in delays:
        if policy.give_up(attempt, spent + delay, "x") is not None:
            break
        spent += delay
        attempt += 1
    assert attempt <= attempts and spent <= budget
