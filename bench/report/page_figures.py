"""The session page's figures (``bench.report.page``): the observed return
of the ordinary rounds against the exact RTP of their wagers, with the probe
rounds left out of it; the outcome classes the rounds covered and the verdict
on the Lucky draws; the controller's reply latencies."""

from __future__ import annotations

import statistics

from bench.errors import RulesError
from bench.report.session_facts import LATENCIES_KEPT, SessionFacts
from bench.report.session_head import percent
from bench.report.summary import return_interval
from bench.rules import get_game
from tablebench_io import charts
from tablebench_io.report_page import esc, figure, picture_of

CONFIDENCE = 0.95


def _probe_words(facts: SessionFacts) -> str:
    probes = facts.summary.probe_rounds
    played = {r.round: r for r in facts.summary.played if r.round in probes}
    items = "".join(
        f"<li>round {n}: {esc(name)}" + (f" (staked {played[n].staked:,}, returned {played[n].returned:,})"
                                         if n in played else "") + "</li>"
        for n, name in sorted(probes.items()))
    return ("<p>Left out: the probe rounds, whose outcome the bench staged to see how the controller settles a "
            "rare case (bench.play.coverage); their return says nothing of the game's.</p>"
            f"<ul>{items}</ul>") if probes else ""


def _return(facts: SessionFacts) -> str:
    s = facts.summary
    observed, exact = s.observed_rtp, s.expected_rtp
    # The ordinary rounds as they are read, never all made at once (a session may have 20,000)
    interval = return_interval((r for r in s.played if r.round not in s.probe_rounds), CONFIDENCE)
    if observed is None:
        return ("<h2>Return to player</h2><p>No ordinary round was staked: there is no return to measure.</p>"
                + _probe_words(facts))
    ordinary, staked, returned = s.ordinary_totals()
    text = (f"<p>Over the {ordinary:,} ordinary round{'s' * (ordinary != 1)}: staked {staked:,} and returned "
            f"{returned:,} (minor units), an observed return of {percent(observed)}")
    if not interval:
        text += " (no interval: it needs at least two ordinary rounds with stakes)"
    if interval:
        inside = exact is not None and interval[0] <= float(exact) <= interval[1]
        text += (f" ({100 * CONFIDENCE:g}% interval {percent(interval[0])} to {percent(interval[1])}, rounds as the "
                 f"independent units)")
    text += f"; the exact return of the wagers played in them, weighted by stake, is {percent(exact)}"
    if interval and exact is not None:
        text += (": inside the interval, as chance allows." if inside else
                 ": OUTSIDE the interval. Over a long session that points at settlement or the outcomes; "
                 "over a few rounds it can be chance.")
    text += "</p>"
    chart = figure(picture_of(charts.intervals(
        [("observed return", float(observed), *(interval or (None, None)))],
        title="return to player, ordinary rounds", xlabel="returned / staked",
        reference=float(exact) if exact is not None else None, reference_label="exact RTP of the wagers played"),
        "The observed return of the ordinary rounds "
        + (f"with its {100 * CONFIDENCE:g}% interval" if interval else
           "(a dot alone: no interval, fewer than two ordinary rounds were staked)")
        + ("" if exact is None else ", against the exact return of their wagers")
        + " (probe rounds left out)."))
    game, rules = get_game(s.game), facts.oracle.rules
    stakes = facts.stakes_by_bet
    rows = "".join(f"<tr><td>{esc(bet)}</td><td class=num>{stake:,}</td>"
                   f"<td class=num>{_bet_rtp(game, bet, rules)}</td></tr>"
                   for bet, stake in sorted(stakes.items(), key=lambda kv: -kv[1]))
    table = (f"<details><summary>stakes by bet, ordinary rounds ({len(stakes)} bets)</summary><table><tr>"
             f"<th>bet</th><th>staked</th><th>exact RTP</th></tr>{rows}</table></details>") if stakes else ""
    return "<h2>Return to player</h2>" + text + chart + table + _probe_words(facts)


def _bet_rtp(game, bet: str, rules) -> str:
    """A bet's exact return; a bet the game does not offer (accepted all the
    same: a violation, shown above) has none."""
    try:
        return percent(game.rtp(bet, rules))
    except RulesError:
        return "not offered: no return to expect"
def _coverage(facts: SessionFacts) -> str:
    """The outcome classes the rounds showed (bench.rules.coverage) and the
    verdict on the Lucky draws (bench.oracle.lucky_draw)."""
    s = facts.summary
    if s.coverage is None and s.lucky_draw is None:
        return ""
    out = ["<h2>Outcome classes and the Lucky draw</h2>"]
    if s.coverage is not None:
        covered = [f"{esc(c.title)} (round {s.coverage.covered[c.id]})" for c in s.coverage.classes
                   if c.id in s.coverage.covered]
        missing = s.coverage.missing()
        total = len(s.coverage.classes)
        out.append(f"<p>Outcome classes covered: {total - len(missing)} of {total}"
                   + (f"; {len(missing)} not covered, by why:" if missing else ".")
                   + "</p>")
        if covered:
            out.append(f"<details><summary>covered</summary><p>{'; '.join(covered)}</p></details>")
        # One line a reason (a 6-round roulette session: 'too few rounds' for 30 pockets is one line, not 30).
        by_reason: dict[str, list[str]] = {}
        for c, why in missing:
            by_reason.setdefault(why, []).append(c.title)
        if by_reason:
            out.append("<ul>" + "".join(f"<li>{esc(', '.join(titles))}: {esc(why)}</li>"
                                        for why, titles in by_reason.items()) + "</ul>")
    if s.lucky_draw is not None:
        verdict = s.lucky_draw
        style = {"fail": "fail", "pass": "pass"}.get(verdict.verdict, "caution")     # too-short: a caution
        out.append(f'<p class="{style}">{esc(verdict.line())}</p>')
    return "".join(out)


def _latencies(facts: SessionFacts) -> str:
    lat = facts.latencies
    if not lat:
        return "<h2>Reply latencies</h2><p>No request of the bench was answered.</p>"
    deadline = (facts.header.get("phases") or {}).get("reply_s")
    rows, sampled = "", False
    for kind, values in lat.items():
        ms = sorted(v * 1000 for v in values)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        count = facts.latency_counts.get(kind, len(ms))
        sampled |= count > len(ms)
        longest = 1000 * facts.latency_longest.get(kind, ms[-1] / 1000)
        rows += (f"<tr><td>{esc(kind)}</td><td class=num>{count}</td><td class=num>{statistics.median(ms):.2f}</td>"
                 f"<td class=num>{p95:.2f}</td><td class=num>{longest:.2f}</td></tr>")
    chart = figure(picture_of(charts.histograms(lat, xlabel="reply latency (ms)", ylabel="replies", scale=1000),
                              "How long the controller took to answer each kind of request, on the bench's clock "
                              "(from the request's first sending to the answer's arrival)."))
    return ("<h2>Reply latencies</h2>"
            + (f"<p>The bench waits at most {deadline:g} s for a reply (docs/protocol.md).</p>" if deadline else "")
            + "<table><tr><th>request → answer</th><th>count</th><th>median (ms)</th><th>95th percentile (ms)</th>"
            f"<th>longest (ms)</th></tr>{rows}</table>"
            + (f"<p class=info>Of a kind with more than {LATENCIES_KEPT:,} replies, the median, the 95th percentile "
               f"and the histogram are of a uniform sample of {LATENCIES_KEPT:,} (the same for the same journal); "
               "the count and the longest are of every reply.</p>" if sampled else "") + chart)
