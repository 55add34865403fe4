"""cost.png: the cumulative dollars each arm spent, question by question, under the price card.

Judge calls are left out: they are the benchmark's cost, not an arm's. Inject is drawn twice,
warm (the cached corpus is read at the cache-read price) and cold (the 5-minute cache expired
between questions, so every read was a fresh write).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import Cost, PriceCard, price_calls
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.record_order import is_paired, ordered

COST_CHART_FILE = "cost.png"

#: Series names of the inject arm in ``cumulative_costs``.
INJECT_WARM = "inject (warm cache)"
INJECT_COLD = "inject (cold cache)"


def _as_cache_write(call: Call) -> Call:
    usage = call.usage
    cold = Usage(input_tokens=usage.input_tokens,
                 cache_creation_input_tokens=(usage.cache_creation_input_tokens
                                              + usage.cache_read_input_tokens),
                 cache_read_input_tokens=0, output_tokens=usage.output_tokens)
    return Call(stage=call.stage, model=call.model, usage=cold, latency_s=call.latency_s,
                backend=call.backend, question_id=call.question_id, valid=call.valid)


def _running_totals(costs: Iterable[Cost]) -> list[Decimal]:
    # Cost sums are exact (pricing's wide context); plain Decimal addition could round.
    running = Cost()
    totals: list[Decimal] = []
    for cost in costs:
        running = running + cost
        totals.append(running.total)
    return totals


def cumulative_costs(records: Sequence[ItemRecord], card: PriceCard) -> dict[str, list[Decimal]]:
    """Series name -> dollars spent after each question (id order); judge calls excluded."""
    found = ordered(records)
    series: dict[str, list[Decimal]] = {}
    paired = [record for record in found if is_paired(record)]
    for mode in sorted({record.mode for record in paired}):
        series[mode] = _running_totals(price_calls(record.mode_calls, card)
                                       for record in paired if record.mode == mode)
    # Every mode paired with a question shares its one inject answer: count it once, taking
    # the calls of the question's first record.
    first: dict[str, ItemRecord] = {}
    for record in found:
        first.setdefault(record.question_id, record)
    inject_calls = [record.inject_calls for record in first.values()]
    series[INJECT_WARM] = _running_totals(price_calls(calls, card) for calls in inject_calls)
    # Cold: the 5-minute cache expired between questions, so every read was a fresh write.
    series[INJECT_COLD] = _running_totals(
        price_calls(map(_as_cache_write, calls), card) for calls in inject_calls)
    return series


def draw_cost_chart(series: Mapping[str, Sequence[Decimal]], card: PriceCard) -> bytes:
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as error:
        raise RuntimeError(f"{COST_CHART_FILE} needs matplotlib (pip install "
                           f"'matplotlib>=3.8'): {error}") from None
    figure = Figure(figsize=(8, 5), dpi=100)
    axes = figure.add_subplot()
    styles = {INJECT_WARM: "--", INJECT_COLD: ":"}
    for name, totals in series.items():
        if totals:
            axes.plot(range(1, len(totals) + 1), [float(total) for total in totals],
                      styles.get(name, "-"), marker="o", markersize=3, label=name)
    if not any(series.values()):
        axes.text(0.5, 0.5, "no questions answered", ha="center", transform=axes.transAxes)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("questions answered (in question id order)")
    axes.set_ylabel("cumulative cost (USD)")
    axes.set_title(f"Cumulative cost per arm, price card {card.label}")
    figure.text(0.5, 0.01, "Judge calls are excluded: they are the benchmark's cost, "
                "not an arm's.", ha="center", fontsize=8)
    if any(series.values()):
        axes.legend(fontsize=8)
    axes.grid(True, alpha=0.3)
    figure.subplots_adjust(bottom=0.15)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()
