"""The monitor's page: one self-contained HTML page, on the shared frame
(``tablebench_io.report_page``), for a ``bench monitor`` output folder,
made from the folder alone (``bench monitor`` writes it as DIR/report.html
when it stops; the same folder gives the same page).

What it says, and on what it stands: every journal part replayed
(``bench.journal.replay``: its chain against the ``.head`` beside it, every
frame judged again), the interval reports of ``hourly.jsonl``, and what the
monitor could not judge (its monitoring faults and the rounds it lost sight
of), which a pass never hides: a monitor that judged nothing, or lost sight
of rounds, is a caution, not a pass.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from bench.errors import BenchError
from bench.journal.replay import ReplayOutcome, replay
from bench.monitor.series import PREFIX
from bench.oracle import Oracle
from tablebench_io.report_page import (CAUTION, FAIL, PASS, Input, Provenance, Verdict, code, esc, report_page,
                                       utc)

PARTS_LISTED = 3        # journal parts named in the provenance; the page's table lists every one
VIOLATIONS_SHOWN = 20
INTERVALS_SHOWN = 200   # interval reports in the table (the first ones; the rest counted): a year is 8,760


def _head(journal: Path) -> str | None:
    try:
        return journal.with_suffix(".head").read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _intervals(folder: Path) -> tuple[list[dict], int]:
    """The interval reports (whole lines only), and how many lines could not be read."""
    found, bad = [], 0
    try:
        lines = (folder / "hourly.jsonl").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return [], 0
    for line in lines:
        try:
            report = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(report, dict):
            found.append(report)
    return found, bad


def _sum(intervals: list[dict], key: str) -> dict[str, int]:
    total: dict[str, int] = {}
    for report in intervals:
        for name, count in (report.get(key) or {}).items():
            if isinstance(count, int):
                total[name] = total.get(name, 0) + count
    return total


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items())) or "none"


def render_monitor(folder: str | Path) -> str:
    """The page of a monitor's output folder. Raises ``BenchError`` when the
    folder holds no journal part."""
    folder = Path(folder)
    parts = sorted(folder.glob(f"{PREFIX}*.jsonl"))
    if not parts:
        raise BenchError(f"{folder}: no monitor journal ({PREFIX}0001.jsonl ...): not a bench monitor folder")
    replayed: list[tuple[Path, str | None, ReplayOutcome | None, str]] = []
    for part in parts:
        head = _head(part)
        try:
            replayed.append((part, head, replay(part, expected_head=head), ""))
        except (BenchError, OSError) as err:
            replayed.append((part, head, None, str(err)))
    intervals, unreadable = _intervals(folder)
    faults = _sum(intervals, "monitoring_faults")
    unjudged = 0
    for report in intervals:
        count = report.get("unjudged_rounds")
        unjudged += count if isinstance(count, int) else 0
    judged: list[Oracle] = [o.oracle for _, _, o, _ in replayed if o is not None and o.oracle is not None]
    rounds = sum(len(oracle.rounds) for oracle in judged)
    by_clause: dict[str, int] = {}
    for oracle in judged:
        for clause, found in oracle.violations_by_clause.items():
            by_clause[clause] = by_clause.get(clause, 0) + found
    broken = [p for p, _, o, _ in replayed if o is None or not o.intact]
    headless = [p for p, head, _, _ in replayed if head is None]
    violations = sum(by_clause.values())
    figures = [("journal parts", f"{len(parts)}"), ("rounds judged", f"{rounds:,}"),
               ("violations", "none" if not violations else f"{violations:,} ({_kinds(by_clause)})"),
               ("monitoring faults", _kinds(faults)), ("rounds not judged", f"{unjudged:,}")]
    reasons = [f"{p.name}: not as the monitor wrote it" for p in broken]
    reasons += [f"{p.name}: no .head beside it: its chain is not checked against a head" for p in headless]
    if violations:
        reasons.append(f"{violations:,} violations heard: {_kinds(by_clause)}")
    if unjudged or faults:
        reasons.append(f"the tap lost sight of {unjudged:,} rounds (monitoring faults: {_kinds(faults)}): "
                       "those were journalled, not judged")
    if broken or violations:
        verdict = Verdict(FAIL, f"FAIL: {violations:,} violations in {rounds:,} rounds heard"
                          + (f"; {len(broken)} journal part{'s' * (len(broken) != 1)} not intact" if broken else ""),
                          reasons, figures)
    elif not rounds or unjudged or faults or headless:
        verdict = Verdict(CAUTION, f"No violation in {rounds:,} rounds heard, but not every round was judged"
                          if rounds else "Nothing judged: the monitor heard no whole round", reasons, figures)
    else:
        verdict = Verdict(PASS, f"PASS: {rounds:,} rounds heard and judged, no violation", reasons, figures)
    header = next((o.header for _, _, o, _ in replayed if o is not None), {})
    inputs = [Input("journal part", p.name, head, "head hash",
                    esc("(matches its .head)" if o is not None and o.chain.ok and head else
                        "(no .head beside it)" if head is None else "(does NOT match its .head, or unreadable)"))
              for p, head, o, _ in replayed[:PARTS_LISTED]]
    if len(parts) > PARTS_LISTED:
        inputs.append(Input("journal parts", f"and {len(parts) - PARTS_LISTED} more, listed below"))
    first = intervals[0].get("from") if intervals else None
    last = intervals[-1].get("to") if intervals else None
    provenance = Provenance(
        date=f"{first} to {last}" if first else f"no interval report; page made {utc(time.time())}",
        inputs=inputs, seeds="none: a monitor draws nothing, it hears the table's own draws",
        engine=esc("bench monitor: the traffic between a table's host and its controller, heard on a tap and "
                   "judged by the oracle as it passed; each journal part replayed here (chain and every frame)"),
        repeat=f"bench replay {folder / parts[0].name} --head $(cat {folder / parts[0].with_suffix('.head').name})",
        more=[("game", esc(header.get("game", "not recorded"))),
              ("interval reports", esc(f"{len(intervals):,} in hourly.jsonl"
                                       + (f"; {unreadable} lines unreadable" if unreadable else "")))])
    return report_page(kind="monitor report", title=f"bench monitor: {folder.name}",
                       heading=f"Monitored table: {header.get('game', folder.name)}", verdict=verdict,
                       provenance=provenance,
                       sections=[_parts(replayed), _violations(judged), _interval_table(intervals)])


def _parts(replayed) -> str:
    rows = []
    for part, head, outcome, problem in replayed:
        if outcome is None:
            rows.append(f"<tr><td>{code(part.name)}</td><td colspan=4 class=fail>{esc(problem)}</td></tr>")
            continue
        found = outcome.oracle.violation_count if outcome.oracle is not None else 0
        rounds = len(outcome.oracle.rounds) if outcome.oracle is not None else 0
        rows.append(f"<tr><td>{code(part.name)}</td><td class=num>{rounds:,}</td>"
                    f"<td class='num {'fail' if found else ''}'>{found:,}</td><td>{esc(outcome.ending)}</td>"
                    f"<td class={'pass' if outcome.intact and head else 'fail'}>"
                    f"{'intact' if outcome.intact else 'NOT as written'}"
                    f"{'' if head else ', no .head'}</td></tr>")
    return ("<h2>Journal parts</h2><p>Each part replays on its own (bench replay PART --head HEAD).</p>"
            "<table><tr><th>part</th><th>rounds judged</th><th>violations</th><th>ending</th><th>journal</th></tr>"
            + "".join(rows) + "</table>")


def _violations(judged: list[Oracle]) -> str:
    found = [v for oracle in judged for v in oracle.violations]
    if not found:
        return "<h2>Violations</h2><p>None heard in the rounds judged.</p>"
    items = "".join(f"<li>round {v.round}, frame {v.frame}: <b>{esc(v.clause)}</b>: {esc(v.message)}</li>"
                    for v in found[:VIOLATIONS_SHOWN])
    more = f"<p>… and {len(found) - VIOLATIONS_SHOWN} more in the journals.</p>" if len(found) > VIOLATIONS_SHOWN else ""
    return f"<h2>Violations</h2><ul>{items}</ul>{more}"


def _interval_table(intervals: list[dict]) -> str:
    if not intervals:
        return "<h2>Interval reports</h2><p>None: hourly.jsonl is missing or empty.</p>"
    rows = "".join(
        f"<tr><td>{esc(r.get('from'))}</td><td>{esc(r.get('to'))}</td><td class=num>{r.get('rounds', 0):,}</td>"
        f"<td>{esc(_kinds(r.get('violations') or {}))}</td><td>{esc(_kinds(r.get('monitoring_faults') or {}))}</td>"
        f"<td class=num>{r.get('unjudged_rounds', 0):,}</td></tr>" for r in intervals[:INTERVALS_SHOWN])
    more = (f"<p>… and {len(intervals) - INTERVALS_SHOWN} more intervals in hourly.jsonl.</p>"
            if len(intervals) > INTERVALS_SHOWN else "")
    return ("<h2>Interval reports</h2><table><tr><th>from</th><th>to</th><th>rounds</th><th>violations</th>"
            f"<th>monitoring faults</th><th>rounds not judged</th></tr>{rows}</table>{more}")


def write_monitor_page(folder: str | Path, path: str | Path) -> Path:
    """The page of ``folder``, written whole and then moved into place."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(render_monitor(folder), encoding="utf-8")
        partial.replace(path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise
    return path
