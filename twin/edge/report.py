"""The page of an edge estimate (``twin edge --report DIR``: DIR/index.html),
in the shared report frame (``tablebench_io.report_page``): the verdict, the
provenance, the edge chart, the method in two sentences with the section of
docs/edge.md it comes from, every cutoff's figures.

The verdict is a measurement unless a call time is judged: for a wheel the
latest safe "no more bets" of each payout table (with its interval, when the
estimate gives one), a caution when the spins are too few to show any call
safe; with a call time given, pass when it is shown safe, fail when not. For
a tower, what the loaded faces are worth: below zero, no edge; above zero, a
player who sees them wins. The figures are read from the estimate's own
verdict line (``EdgeOutcome.verdict_json``), so the page says what ``--json`` says.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import resources
from typing import Callable
from pathlib import Path

from tablebench_io import charts
from tablebench_io.report_page import (CAUTION, FAIL, INFO, PASS, Provenance, Verdict, code, esc, figure,
                                       file_input, picture_of, report_page)
from twin.fingerprint import describe as describe_twin
from twin.kinds import plant_kind

DOC = "docs/edge.md"
# The method in two sentences, and the section of the shipped docs it comes from.
METHOD = {
    "wheel": ("Method (wheel)",
              "An ideal player watches the ball and the rotor on camera until the call (their passages past a mark, "
              "or every frame, to the camera's timing and angle resolution), predicts where the ball leaves the "
              "track with the twin's own track model, and bets the straight ups most likely around the pocket under "
              "it (sorting spins by rotor speed and leaving place, skipping what it cannot predict, where that "
              "pays), the descent's scatter learnt on the even seeds; the edge is what those bets won on the odd "
              "seeds, with its interval. The latest call up to which the upper end of that interval stays below "
              "zero has an interval of its own, from resampling the spins; a call time is shown safe when it is "
              "no later than both. Shown on the twin, whose track's noise is an assumption, so a real wheel may "
              "be more predictable than this."),
    "tower": ("Method (tower)",
              "A player who sees the faces loaded on top (625b.2(d)(6)) learns on the even seeds how often each "
              "loaded face ends on each resting face, and on every odd-seed drop bets the bet of the base "
              "paytable (625b.2(f)) with the highest expected return; the edge is the mean return of those bets, "
              "with its interval. A tower that randomises gives the house edge of the same bets: an edge above it "
              "says the loaded faces tell something of the result."),
}


def _pct(x: float | None) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.1f}%"


def _seconds(x) -> str:
    return f"{x:g} s"


def _per_payout(value, key: str):
    """A verdict field given per payout table ({key: value}) or once for all."""
    return value.get(key) if isinstance(value, dict) else value


def _interval_words(interval) -> str:
    if isinstance(interval, (list, tuple)) and len(interval) == 2:
        low, high = ("none" if x is None else f"{x:g}" for x in interval)
        return f"interval {low} to {high} s"
    return ""


def _call_time_judged(verdict: dict, safe, payout: str | None = None) -> bool | None:
    """Is the call time given (``--call-time-s``) shown safe? The estimate's
    own word if it says (``call_time_shown_safe``, for its main payout, the one
    its exit status judges; other tables are then not judged: None); else shown
    safe when it is no later than the latest safe call (too few spins to show
    any call safe: not shown)."""
    told = verdict.get("call_time_shown_safe", verdict.get("call_time_safe"))
    if isinstance(told, bool):
        return told if payout is None or verdict.get("payout") in (None, payout) else None
    when = verdict.get("call_time_s")
    if when is None:
        return None
    return safe is not None and when <= safe


def wheel_verdict(outcome) -> Verdict:
    v = outcome.verdict_json()
    # the verdict line: the main payout's call (``payout``) with its interval, every
    # table's point figure in ``latest_safe_call_by_payout_s``
    safe_calls = v.get("latest_safe_call_by_payout_s", v.get("latest_safe_call_s"))
    intervals = v.get("latest_safe_call_interval_s")
    if isinstance(intervals, (list, tuple)) and v.get("payout"):
        intervals = {v["payout"]: intervals} if v.get("resamples") else {}
    runs = v.get("spins", outcome.runs)
    figures, reasons, shown = [], [], {}
    for p in outcome.payouts:
        safe = _per_payout(safe_calls, p.key)
        interval = _interval_words(_per_payout(intervals, p.key))
        shown[p.key] = safe
        figures.append((f"{p.label} ({p.clause})",
                        ("none shown safe" if safe is None else f"{safe:g} s after the launch")
                        + (f"; {interval}" if interval else "")))
    not_shown = [p for p in outcome.payouts if shown[p.key] is None]
    if not_shown:
        which = ("every payout table" if len(not_shown) == len(outcome.payouts) else
                 ", ".join(p.label for p in not_shown))
        reasons.append(f"{which}: at {runs} spins the interval of the edge reaches zero even at the launch, so no "
                       "call is shown safe; not unsafe, too few spins to show it (docs/edge.md, “How many spins”)")
    call = v.get("call_time_s")
    if call is not None:
        judged = {p.key: _call_time_judged(dict(v, latest_safe_call_s=shown[p.key]), shown[p.key], p.key)
                  for p in outcome.payouts}
        figures.insert(0, ("call time judged", f"{call:g} s after the launch"))
        failing = [p.label for p in outcome.payouts if judged[p.key] is False]
        if failing:
            return Verdict(FAIL, f"FAIL: \"no more bets\" at {call:g} s is not shown safe "
                                 f"({', '.join(failing)})", reasons, figures)
        tables = [p.label for p in outcome.payouts if judged[p.key]]
        return Verdict(PASS, f"PASS: \"no more bets\" at {call:g} s is shown safe "
                             + ("for every payout table" if len(tables) == len(outcome.payouts) else
                                f"({', '.join(tables)}, the table judged)"), reasons, figures)
    known = [(shown[p.key], p) for p in outcome.payouts if shown[p.key] is not None]
    if not known:
        return Verdict(CAUTION, f"No call time shown safe at {runs} spins: too few spins to judge", reasons, figures)
    if not_shown:
        told = "; ".join(f"{p.label}: {safe:g} s after the launch" for safe, p in known)
        return Verdict(CAUTION, f"Not shown safe at {runs} spins for {len(not_shown)} of {len(outcome.payouts)} "
                                f"payout tables; {told}", reasons, figures)
    earliest, first = min(known, key=lambda sp: sp[0])
    headline = f"Latest safe \"no more bets\": {earliest:g} s after the launch"
    if len(outcome.payouts) > 1:
        headline += f" (the earliest of {len(outcome.payouts)} payout tables: {first.label})"
    return Verdict(INFO, headline, reasons, figures)


def tower_verdict(outcome) -> Verdict:
    e = outcome.tower.edge
    conf = f"{100 * outcome.confidence:g}%"
    figures = [("edge from the loaded faces", f"{_pct(e.edge)} ({conf} interval {_pct(e.low)} to {_pct(e.high)})"),
               ("the same bets on fair dice", _pct(e.house_edge)),
               ("drops", f"{e.fit_runs} fit, {e.runs} held out, {outcome.tower.no_rolls} no rolls left out")]
    if e.high < 0:
        return Verdict(INFO, "The loaded faces give a watching player no edge", (), figures)
    if e.low > 0:
        return Verdict(FAIL, f"FAIL: a player who sees the loaded faces wins, {_pct(e.edge)} of the stake a bet",
                       ["the faces loaded on top in view of the players (625b.2(d)(6)) tell the result: the tower "
                        "does not randomise (twin validate: the loaded-face test)"], figures)
    return Verdict(CAUTION, f"Cannot tell at {outcome.runs} drops: the edge's interval reaches zero",
                   ["the interval of the edge straddles zero: more drops (--drops) narrow it"], figures)


def verdict(outcome) -> Verdict:
    return page_of(outcome).verdict(outcome)


def wheel_chart(outcome) -> str:
    series, marks = [], []
    for k, payout in enumerate(outcome.payouts):
        rows = [r for r in outcome.rows if r.payout == payout.key]
        safe = outcome.safe_call(payout.key)
        # A payout's latest safe call is said in its own legend entry (a dotted line of its colour), not one more.
        said = f"; dotted: its latest safe call, {safe:g} s" if safe is not None else ""
        series.append((f"{payout.label} ({payout.clause}){said}", [r.cutoff_s for r in rows],
                       [r.edge.edge for r in rows], [r.edge.low for r in rows], [r.edge.high for r in rows],
                       payout.house_edge))
        if safe is not None:
            marks.append((safe, f"_latest safe call, {payout.key}", charts.SERIES[k % len(charts.SERIES)]))
    v = outcome.verdict_json()
    low, high = (v.get("latest_safe_call_interval_s") or (None, None)) if v.get("resamples") else (None, None)
    if high is not None:              # the main payout's call, as far as other spins could move it: one entry
        if low is None:
            marks.append((high, f"latest safe call's interval ({v.get('payout')}): from no safe call to {high:g} s",
                          charts.EXPECT))
        else:
            marks.append((low, f"latest safe call's interval ({v.get('payout')}): {low:g} to {high:g} s",
                          charts.EXPECT))
            marks.append((high, "_its upper end", charts.EXPECT))
    call = v.get("call_time_s")
    if call is not None:
        marks.append((call, f"call time judged: {call:g} s", charts.EXPECT))
    return charts.curves_with_intervals(
        series, title="the edge of a watching player, by call time",
        xlabel="cutoff: seconds after the launch when betting closes",
        ylabel=f"player's return ({100 * outcome.confidence:g}% interval)", zero="zero: the player breaks even",
        marks=marks, on_top=next((k for k, p in enumerate(outcome.payouts) if p.key == v.get("payout")), 0))


def tower_chart(outcome) -> str:
    e = outcome.tower.edge
    return charts.intervals([("seeing the loaded faces", e.edge, e.low, e.high), ("fair dice, same bets",
                                                                                  e.house_edge, None, None)],
                            title="the edge of a player who sees the loading",
                            xlabel="player's return per unit staked", reference=0.0, reference_label="break even",
                            failed=e.low > 0)


def _doc_section(title: str) -> str | None:
    """The section of docs/edge.md called ``title``, from the installed docs
    (``tablebench_docs``) or this checkout's; None where neither is."""
    text = None
    try:
        text = (resources.files("tablebench_docs") / "edge.md").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        beside = Path(__file__).resolve().parents[2] / DOC
        if beside.is_file():
            text = beside.read_text(encoding="utf-8")
    if text is None:
        return None
    lines = text.splitlines()
    try:
        start = next(k for k, line in enumerate(lines) if line.strip() == f"## {title}")
    except StopIteration:
        return None
    end = next((k for k in range(start + 1, len(lines)) if lines[k].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).strip()


def _method(outcome) -> str:
    title, words = page_of(outcome).method
    section = _doc_section(title)
    anchor = f"method-{outcome.kind}"
    where = f"{DOC}, section “{title}”"
    link = (f'<a href="#{anchor}">{esc(where)}</a> (below, as shipped with this version)' if section
            else esc(where))
    shown = (f'<details id="{anchor}"><summary>{esc(where)}</summary><pre>{esc(section)}</pre></details>'
             if section else "")
    return f"<h2>Method and assumptions</h2><p>{esc(words)} More: {link}.</p>{shown}"


def _cutoff_table(outcome) -> str:
    conf = f"{100 * outcome.confidence:g}%"

    def interval(r) -> str:
        state = "pass" if r.edge.high < 0 else "fail" if r.edge.low > 0 else "caution"
        return f"<td class='num {state}'>{_pct(r.edge.low)} to {_pct(r.edge.high)}</td>"
    rows = "".join(
        f"<tr><td class=num>{r.cutoff_s:g}</td><td>{esc(r.payout)}</td><td class=num>{r.numbers}</td>"
        f"<td class=num>{_pct(r.edge.edge)}</td>{interval(r)}<td class=num>{_pct(r.edge.house_edge)}</td>"
        f"<td class=num>{r.edge.fit_runs} / {r.edge.runs}</td><td class=num>{100 * r.informed:.0f}%</td>"
        f"<td class=num>{r.seen_at_s:g}</td><td>{esc(r.strategy)}</td><td class=num>{100 * r.bet_share:.0f}%</td>"
        "</tr>" for r in outcome.rows)
    return ("<h2>Every cutoff</h2><p>An interval wholly below zero (green) shows the house keeps its edge at that "
            "cutoff; one reaching zero (amber) does not show it; one above zero (red) shows the player wins.</p>"
            "<table><tr><th>cutoff (s)</th><th>payout</th><th>numbers bet</th><th>edge</th>"
            f"<th>{conf} interval</th><th>house edge</th><th>spins fit / held out</th><th>informed</th>"
            f"<th>predicted at (s)</th><th>the player's bets</th><th>spins bet</th></tr>{rows}</table>")


def _tower_figures(outcome) -> str:
    t = outcome.tower
    bets = ", ".join(f"{esc(k)} {n}" for k, n in sorted(t.bets.items(), key=lambda kv: -kv[1]))
    return f"<h2>Bets the player chose</h2><p>On the held-out drops: {bets or 'none'}.</p>"


def _observer(outcome) -> str:
    cam = outcome.camera
    if cam is None:
        return ""
    return esc(f"{cam.mode}: a frame every {cam.frame_s:.4g} s, angles to {cam.angle_res_deg:g}°, what it saw in "
               f"the last {cam.window_s:g} s before the cutoff, the rotor seen from {cam.rotor_lead_s:g} s before "
               "the launch")


def _payouts_input(outcome) -> list:
    """The file the payouts were read from (a game file, a rules submission, the shipped paytables)."""
    source = Path(getattr(outcome, "paytable", "") or "")
    if not source.is_file():
        return []
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    return [file_input("payouts", source, digest, "game", "submission")]


def provenance(outcome, command: str, written: datetime) -> Provenance:
    last = outcome.first_seed + outcome.runs - 1
    plant = plant_kind(outcome.kind)
    unit = plant.runs
    digest = hashlib.sha256(Path(outcome.design_path).read_bytes()).hexdigest()
    seeds = esc(f"{unit} {outcome.first_seed}–{last}: fit on the even seeds, measured on the odd ones")
    noise = getattr(outcome, "noise_seed", None)
    if plant.watched:                 # the observer's reading errors have a seed of their own
        seeds += esc("; the observer's reading errors: " + (f"noise seed {noise}" if noise is not None else
                                                            "the noise seed in the command below")
                     + ", one draw per spin and cutoff")
    engine = getattr(outcome, "engine", None)
    workers = getattr(outcome, "workers", None)
    ran = ((f"{engine}" + (f", {workers} worker(s)" if workers else "") + "; ") if engine else "")
    more = [("records", code(outcome.results_path)),
            ("confidence", esc(f"{100 * outcome.confidence:g}% intervals")),
            ("twin", esc(describe_twin(getattr(outcome, "twin", None))))]
    if plant.watched:
        more.insert(0, ("observer", _observer(outcome)))
        if outcome.invalid:
            more.append(("invalid spins", esc(f"{outcome.invalid} left out (a dealer spins again)")))
    return Provenance(
        date=written.strftime("%Y-%m-%d %H:%M:%S UTC"),
        inputs=[file_input(f"design (a {outcome.kind})", outcome.design_path, digest, outcome.kind)]
        + _payouts_input(outcome),
        seeds=seeds,
        engine=esc(f"{ran}this run: campaign {outcome.campaign_s:.0f} s"
                   + (f", predictions {outcome.predict_s:.0f} s (local pool)" if plant.watched else "")
                   + "; runs already in the records file are not run again"),
        repeat=command, more=more)


def render(outcome, command: str, written: datetime) -> str:
    page = page_of(outcome)
    sections = [figure(picture_of(page.chart(outcome), page.caption)), _method(outcome), page.figures(outcome)]
    return report_page(kind="edge estimate", title=f"twin edge: {outcome.design_name}",
                       heading=f"Edge of a watching player: {outcome.design_name}", verdict=verdict(outcome),
                       provenance=provenance(outcome, command, written), sections=sections)


@dataclass(frozen=True)
class EdgePage:
    """What the page shows of one kind of plant (``twin.kinds``: ``edge_page``)."""
    verdict: Callable
    chart: Callable
    caption: str
    figures: Callable                 # the section after the method
    method: tuple[str, str]           # its title in docs/edge.md, and the method in two sentences


WHEEL_PAGE = EdgePage(wheel_verdict, wheel_chart,
                      "The player's return at each cutoff with its interval (band), per payout table; dashed, the "
                      "house edge of the same bets on a fair wheel; dotted, the latest safe call of each table.",
                      _cutoff_table, METHOD["wheel"])
TOWER_PAGE = EdgePage(tower_verdict, tower_chart,
                      "The return of a player who sees the loaded faces with its interval, and the same bets on "
                      "fair dice.", _tower_figures, METHOD["tower"])


def page_of(outcome) -> EdgePage:
    page = plant_kind(outcome.kind).part("edge_page")
    # PlantKind.part gives what the name names: here the page's parts, not a function as its type says.
    if not isinstance(page, EdgePage):
        raise TypeError(f"{outcome.kind}'s edge_page is not an EdgePage: {page!r}")
    return page


def write_report(outcome, folder: Path, command: str) -> Path:
    """Write the self-contained ``index.html`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "index.html"
    partial = folder / "index.html.partial"
    partial.write_text(render(outcome, command, datetime.now(timezone.utc)), encoding="utf-8")
    partial.replace(path)
    return path
