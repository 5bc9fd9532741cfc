"""The edge page's chart reads at a glance (issue 41): the classic and the
Lightning payout, each with its house edge and its latest safe call, the
call's interval and the call time judged, in at most five legend entries
(it had eight); the payout the verdict is about drawn over the other (the
Lucky line was hidden under the classic one where they agree); an interval
with no safe call at its low end says so, never "from none to 0.5 s"."""

from __future__ import annotations

import base64
import re
from html import unescape
from types import SimpleNamespace

from tablebench_io.charts import SERIES
from twin.edge.report import wheel_chart

CUTOFFS = [0.0, 2.0, 4.0, 6.0]


def _outcome(interval):
    def rows(key, edges):
        return [SimpleNamespace(payout=key, cutoff_s=c, edge=SimpleNamespace(edge=e, low=e - 0.2, high=e + 0.2))
                for c, e in zip(CUTOFFS, edges)]
    payouts = [SimpleNamespace(key="lightning", label="Lightning, 29 to 1", clause="617c.3(f)", house_edge=-0.029),
               SimpleNamespace(key="classic", label="classic, 35 to 1", clause="617c.3(f)", house_edge=-0.027)]
    same = [0.9, 0.4, -0.03, -0.03]                     # the two agree late in the spin: one would hide the other
    return SimpleNamespace(
        payouts=payouts, rows=rows("classic", same) + rows("lightning", same), confidence=0.99,
        safe_call=lambda key: {"classic": 4.0, "lightning": 4.0}[key],
        verdict_json=lambda: {"resamples": 20, "latest_safe_call_interval_s": interval, "payout": "lightning",
                              "call_time_s": 5.0})


def _texts(svg: str) -> list[str]:
    return [unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def _svg(outcome) -> str:
    drawn = wheel_chart(outcome)
    return drawn if drawn.lstrip().startswith("<") else base64.b64decode(drawn).decode()


def test_the_wheel_chart_has_few_legend_entries_each_saying_its_whole_line():
    texts = _texts(_svg(_outcome([2.0, 4.0])))
    legend = [t for t in texts if t.startswith(("classic", "Lightning", "latest safe call", "call time"))]
    assert len(legend) <= 5, legend
    assert "classic, 35 to 1 (617c.3(f)); dotted: its latest safe call, 4 s; dashed: the house edge of the same " \
           "bets, -2.7%" in texts
    assert "latest safe call's interval (lightning): 2 to 4 s" in texts and "call time judged: 5 s" in texts
    assert "zero: the player breaks even" in texts and not any(t.startswith("_") for t in texts)


def test_an_interval_with_no_safe_call_at_its_low_end_says_so():
    texts = _texts(_svg(_outcome([None, 0.5])))
    assert "latest safe call's interval (lightning): from no safe call to 0.5 s" in texts
    assert not any("none" in t for t in texts), texts


def test_the_payout_the_verdict_is_about_is_drawn_over_the_other():
    svg = _svg(_outcome([2.0, 4.0]))
    # The line of each series inside the plot (clipped; the legend's are not), in the order drawn: an SVG
    # paints later over earlier.
    strokes = [m.group(1) for m in re.finditer(
        r'clip-path="url\(#\w+\)" style="fill: none; stroke: (#[0-9a-f]{6}); stroke-width: 1\.4', svg)]
    assert len(strokes) == 2 and strokes[-1] == SERIES[0], strokes     # Lightning, the verdict's payout, last
