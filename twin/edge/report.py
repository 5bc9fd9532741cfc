"""The HTML page of an edge estimate: one self-contained file, its chart inline.

The chart (matplotlib) shows the edge of each payout table against the
cutoff with its interval, the house edge of the same bets as a dashed line,
zero, and the latest safe call time (the main payout's with its interval from
resampling, shaded).
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

COLOURS = {"lightning": "#1f77b4", "lightning-lucky": "#d62728", "classic": "#2ca02c"}


def wheel_chart(outcome) -> bytes:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    for n, payout in enumerate(outcome.payouts):
        rows = [r for r in outcome.rows if r.payout == payout.key]
        shift = 0.08 * (n - (len(outcome.payouts) - 1) / 2)      # payouts side by side, not on top
        x = [r.cutoff_s + shift for r in rows]
        y = [100 * r.edge.edge for r in rows]
        err = [[100 * (r.edge.edge - r.edge.low) for r in rows], [100 * (r.edge.high - r.edge.edge) for r in rows]]
        colour = COLOURS.get(payout.key)
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, color=colour, label=f"{payout.label} ({payout.clause})")
        ax.axhline(100 * payout.house_edge, color=colour, linestyle="--", linewidth=1,
                   label=f"house edge {100 * payout.house_edge:.1f}%")
        safe = outcome.safe_call(payout.key)
        if safe is not None:
            ax.axvline(safe, color=colour, linestyle=":", linewidth=1)
        v = outcome.verdict
        if v is not None and v.payout == payout.key and v.resamples and v.interval_s[1] is not None:
            low = 0.0 if v.interval_s[0] is None else v.interval_s[0]
            ax.axvspan(low, v.interval_s[1], color=colour, alpha=0.12,
                       label=f"latest safe call, {100 * v.level:g}% interval")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("cutoff: seconds after the launch when betting closes")
    ax.set_ylabel(f"player's expected return, % ({100 * outcome.confidence:g}% interval)")
    ax.set_title(f"{outcome.design_name}: edge of a watching player")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def _pct(x: float) -> str:
    return f"{100 * x:+.1f}%"


def write_report(outcome, folder: Path, command: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    v = outcome.verdict_json()
    if outcome.kind == "wheel":
        image = base64.b64encode(wheel_chart(outcome)).decode("ascii")
        verdicts = "".join(
            f"<li>{html.escape(p.label)} ({p.clause}): latest safe call "
            + (html.escape(outcome.verdict.text()) if p.key == outcome.verdict.payout else
               'none: even at the launch the interval reaches zero' if outcome.safe_call(p.key) is None
               else f'{outcome.safe_call(p.key):g} s after the launch') + "</li>"
            for p in outcome.payouts)
        if outcome.call_time_s is not None:
            shown = outcome.verdict.shows_safe(outcome.call_time_s)
            verdicts += (f"<li><b>'No more bets' at {outcome.call_time_s:g} s: "
                         f"{'shown safe' if shown else 'NOT shown safe'}</b></li>")
        rows = "".join(
            f"<tr><td>{r.cutoff_s:g}</td><td>{html.escape(r.payout)}</td><td>{r.numbers}</td>"
            f"<td>{_pct(r.edge.edge)}</td><td>{_pct(r.edge.low)} to {_pct(r.edge.high)}</td>"
            f"<td>{_pct(r.edge.house_edge)}</td><td>{r.edge.fit_runs} / {r.edge.runs}</td>"
            f"<td>{100 * r.informed:.0f}%</td><td>{r.seen_at_s:g}</td><td>{html.escape(r.strategy)}</td>"
            f"<td>{100 * r.bet_share:.0f}%</td></tr>" for r in outcome.rows)
        body = (f'<img alt="edge against cutoff" src="data:image/png;base64,{image}">'
                f"<h2>Latest safe \"no more bets\" (617c.3(c))</h2><ul>{verdicts}</ul>"
                "<p>The latest cutoff up to which the upper end of the edge's interval stays below zero; its "
                "interval, from resampling the spins, is how far other spins could move it. A call time is shown "
                "safe when it is no later than the latest safe call and the low end of that interval.</p>"
                "<h2>Per cutoff</h2><table><tr><th>cutoff s</th><th>payout</th><th>numbers bet</th><th>edge</th>"
                f"<th>{100 * outcome.confidence:g}% interval</th><th>house edge</th><th>spins fit / held out</th>"
                f"<th>informed</th><th>predicted at s</th><th>the player's bets</th><th>spins bet</th></tr>"
                f"{rows}</table>")
    else:
        t = outcome.tower
        bets = ", ".join(f"{k} {n}" for k, n in sorted(t.bets.items(), key=lambda kv: -kv[1]))
        body = (f"<p>Edge of a player who sees the loaded faces: <b>{_pct(t.edge.edge)}</b> "
                f"({100 * outcome.confidence:g}% interval {_pct(t.edge.low)} to {_pct(t.edge.high)}), "
                f"against {_pct(t.edge.house_edge)} for the same bets on fair dice; {t.edge.fit_runs} drops fit, "
                f"{t.edge.runs} held out, {t.no_rolls} no rolls left out. Bets chosen: {html.escape(bets)}.</p>")
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>twin edge: {html.escape(outcome.design_name)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}td,th{{padding:2px 8px;border-bottom:1px solid #ddd}}</style>
</head><body><h1>Edge of a watching player: {html.escape(outcome.design_name)}</h1>
<p>{html.escape(outcome.design_path)} &middot; {outcome.runs} runs from seed {outcome.first_seed}; fit on even seeds,
measured on odd seeds. Method and assumptions: docs/edge.md.</p>
{body}
<h2>Repeat it</h2><pre>{html.escape(command)}</pre>
<pre>{html.escape(json.dumps(v, indent=2))}</pre></body></html>
"""
    (folder / "index.html").write_text(page, encoding="utf-8")
    return folder / "index.html"
