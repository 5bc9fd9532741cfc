"""The session report: one self-contained HTML page a regulator can file
and a vendor can sign, built from the session's journal alone
(``bench.report.session_facts.read_session``). ``bench run`` writes it as
DIR/report.html, ``bench replay JOURNAL --report FILE`` writes the same page.

At the top, the verdict and its provenance (dates, software, the journal's
head hash, the design's and submission's SHA-256, the session seed, the
controller's HELLO). Then the violations by clause with the regulation's
own words for the clause, each with its round, the frames concerned decoded
and a picture of the round's outcome; the rounds that failed, were voided or
were no rolls; the observed return against the exact RTP of the wagers
played; the controller's reply latencies; every round in a table.
"""

from __future__ import annotations

import os
import statistics
import logging
from datetime import datetime, timezone
from pathlib import Path

from bench.errors import RulesError
from bench.oracle import phase_clause
from bench.report.outcome_picture import outcome_picture, reading_words, why_no_picture
from bench.journal.replay import describe_seals
from bench.report.summary import return_interval
from bench.rules import describe, get_game
from bench.rules.regulation_text import clause_text, source_of
from bench.report.session_facts import SessionFacts, read_session
from tablebench_io import charts
from tablebench_io.report_page import (code, esc, figure, page, picture_of, provenance_table, software_row,
                              verdict_box)

log = logging.getLogger(__name__)   # unconfigured, a warning still reaches stderr (logging.lastResort)


def _title(game: str) -> str:
    """The game's name for people; a journal's unknown game by its own name."""
    try:
        return describe(game).display_name
    except (RulesError, KeyError, TypeError):
        return str(game)


VIOLATIONS_SHOWN = 25          # a clause's violations shown one by one; the rest are counted
PICTURES_SHOWN = 24            # outcome pictures in one report
ROUNDS_LISTED = 500            # rows of the every-round table
CONFIDENCE = 0.95
MARKED = ' style="background:#fde7e4"'     # the frame a violation names, among its round's frames


def _when(wall: float | None) -> str:
    if wall is None:
        return "unknown"
    return datetime.fromtimestamp(wall, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * float(x):.2f}%"


def _value_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(_value_text(item) for item in value)
    if isinstance(value, dict):
        if set(value) == {"bet", "pays"}:
            return f"{value['bet']} pays {value['pays']} to 1"
        return " ".join(f"{k}={_value_text(v)}" for k, v in value.items())
    return str(value)


def _message_text(message: dict) -> str:
    """A decoded message as a person reads it: its type, its round first, then its fields."""
    keys = sorted((k for k in message if k not in ("type", "seq")), key=lambda k: (k != "round", k))
    return " ".join([str(message.get("type"))] + [f"{k}={_value_text(message[k])}" for k in keys])


class _Pictures:
    """Each round's outcome picture, drawn once and shown where it is first
    needed (later mentions link to it), at most PICTURES_SHOWN of them."""

    def __init__(self, facts: SessionFacts):
        self.facts = facts
        self.shown: set[int] = set()

    def of_round(self, round_no: int | None) -> str:
        if round_no is None:
            return ""
        if round_no in self.shown:
            return f'<p><a href="#outcome-{round_no}">the outcome of round {round_no}: shown above</a></p>'
        readings = self.facts.plants.get(round_no) or []
        if not readings:
            return f"<p class=info>round {round_no}: no plant reading in the journal</p>"
        self.shown.add(round_no)
        anchor = f'id="outcome-{round_no}"'
        why_not = why_no_picture(self.facts.header)
        if why_not or len(self.shown) > PICTURES_SHOWN:
            throws = ", ".join(reading_words(r) for r in readings[:12]) + (", …" if len(readings) > 12 else "")
            reason = why_not or "no more pictures in this report (bench replay --round N --gif FILE draws one)"
            return (f"<p class=info {anchor}>round {round_no}: the plant read {esc(throws)} "
                    f"(no picture: {esc(reason)})</p>")
        parts = []
        for reading in readings[-3:]:
            png, what = outcome_picture(self.facts.header, reading)
            attempt = f", throw {reading.get('attempt', 0) + 1}" if len(readings) > 1 else ""
            if png is None:
                parts.append(f"<p class=info>round {round_no}{attempt}: no picture: {esc(what)}</p>")
            else:
                parts.append(figure(picture_of(png, f"Round {round_no}{attempt}: {what}."), width=480))
        return f'<div class="pictures" {anchor}>' + "".join(parts) + "</div>"


def _verdict(facts: SessionFacts) -> str:
    s, r = facts.summary, facts.replayed
    reasons = []
    if not r.chain.ok:
        reasons.append(f"the journal's hash chain is BROKEN ({len(r.chain.problems)} problems): it was changed")
    if r.decode_problems:
        reasons.append(f"{len(r.decode_problems)} recorded frames do not decode as recorded")
    if s.violations:
        clauses = len(s.violations_by_clause)
        reasons.append(f"{len(s.violations)} violation{'s' * (len(s.violations) != 1)} of "
                       f"{clauses} clause{'s' * (clauses != 1)}: "
                       + ", ".join(f"{c} ({n})" for c, n in s.violations_by_clause.most_common()))
    if facts.failures:
        reasons.append(f"{len(facts.failures)} round{'s' * (len(facts.failures) != 1)} failed: "
                       + ", ".join(map(str, sorted(facts.failures))))
    title = _title(s.game)
    if facts.passed:
        text = f"PASS: {s.rounds} {title} rounds, every frame compliant"
    else:
        text = f"FAIL: {title}, {s.rounds} rounds settled"
    return verdict_box(facts.passed, text, reasons)


def _recorded_by(header: dict) -> str:
    """The software that recorded the session, as its header says (``versions``
    since the header has carried them; the ``software`` name before)."""
    versions = header.get("versions") or {}
    names = (("tablebench", "tablebench "), ("pybullet", "PyBullet "), ("python", "Python "))
    found = [f"{label}{versions[key]}" for key, label in names if versions.get(key)]
    return ", ".join(found) or str(header.get("software") or "not recorded")


def _provenance(facts: SessionFacts) -> str:
    h, chain = facts.header, facts.replayed.chain
    if facts.expected_head:
        head_note = ("matches the head hash kept apart" if chain.head == facts.expected_head and chain.ok
                     else "does NOT match the head hash kept apart")
    else:
        head_note = "not checked against a head hash kept apart (bench replay --head HASH)"
    design = h.get("design")
    rows = [
        ("date", esc(f"{_when(facts.first_wall)} to {_when(facts.last_wall)}")),
        ("game", esc(f"{_title(h['game'])} ({h['game']}), "
                     f"paytable {h.get('paytable') or 'the regulation’s'}"
                     + (", options " + ", ".join(f"{k}={v}" for k, v in sorted((h.get('options') or {}).items()))
                        if h.get("options") else ""))),
        ("recorded by", esc(_recorded_by(h))),
        ("report by", esc(software_row())),
        ("journal", f"{code(facts.journal)}: {chain.records} records, hash chain "
                    + ("intact" if chain.ok else "<b class=fail>BROKEN</b>")
                    + ("" if chain.ended else ", <b>cut off before its session-end record</b>")),
        ("journal head", f"{code(chain.head)} ({esc(head_note)})"),
        ("seals", esc("; ".join(line.strip() for line in describe_seals(facts.replayed.seals))
                      .removeprefix("seals: "))),
        ("session seed", code(h.get("seed"))),
        ("plant", esc(h.get("plant"))),
        ("design", (f"{code(design)}<br>SHA-256 {code(h.get('design_sha256'))}" if design else "none")),
        ("submission", (f"{code(h['submission'])}<br>SHA-256 {code(h.get('submission_sha256'))}"
                        if h.get("submission") else "none: judged by the regulation's defaults")),
        ("controller", esc(f"{h.get('controller')}" + (" (the emulated controller" + (
            f", misbehaving: {h['misbehave']})" if h.get("misbehave") else ")") if h.get("emulated") else ""))),
        ("controller's HELLO", code(_message_text(facts.hello)) if facts.hello else "none recorded"),
        ("phases", esc(", ".join(f"{k.removesuffix('_s')} {v:g} s" for k, v in (h.get("phases") or {}).items()))),
    ]
    return provenance_table(rows)


def _clause_words(clause: str) -> str:
    quoted = clause_text(clause)
    if quoted:
        return "".join(f"<blockquote>{esc(text)}<cite>{esc(source_of(c))}, {esc(c)}</cite></blockquote>"
                       for c, text in quoted)
    if clause == "protocol":
        return ("<p class=info>Not a regulation: the bench's protocol (docs/protocol.md), such as a reply "
                "the bench waited for too long.</p>")
    return (f"<p class=info>The text of {esc(clause)} is not among the regulation texts the bench "
            "carries (bench.rules.regulation_text); the citation stands as the oracle gives it.</p>")


def _frame_html(frame) -> str:
    who = "bench → controller" if frame.direction == "tx" else "controller → bench"
    return (f"<table><tr><th>frame</th><th>direction</th><th>message (decoded)</th><th>bytes on the wire</th>"
            f"<th>time</th></tr><tr><td class=num>{frame.index}</td><td>{esc(who)}</td>"
            f"<td>{code(_message_text(frame.message))}</td><td>{code(frame.raw.rstrip())}</td>"
            f"<td>{esc(_when(frame.wall))}<br>journal record {esc(frame.record)}, wire {frame.place}</td>"
            f"</tr></table>")


def _round_frames(facts: SessionFacts, round_no: int | None, highlight: int | None, listed: set[int]) -> str:
    """Every frame of the round, once a round (at its first violation)."""
    frames = facts.round_frames.get(round_no) if round_no is not None else None
    if not frames or round_no in listed:
        return ""
    listed.add(round_no)
    rows = "".join(
        f"<tr{MARKED if f.index == highlight else ''}><td class=num>{f.index}</td>"
        f"<td>{'→' if f.direction == 'tx' else '←'}</td><td>{code(_message_text(f.message))}</td></tr>"
        for f in frames)
    return (f"<details><summary>every frame the oracle judged in round {round_no} ({len(frames)})</summary>"
            f"<table><tr><th>frame</th><th></th><th>message (→ bench to controller, ← controller to bench)</th>"
            f"</tr>{rows}</table></details>")


def _violations(facts: SessionFacts, pictures: _Pictures) -> str:
    s = facts.summary
    if not s.violations:
        return ("<h2>Violations by clause</h2><p class=pass>None: every frame was what the regulation and the "
                "protocol ask.</p>")
    def rounds_of(clause: str) -> str:
        return ", ".join(map(str, sorted({v.round for v in s.violations if v.clause == clause and v.round})))

    out = ["<h2>Violations by clause</h2>",
           "<table><tr><th>clause</th><th>violations</th><th>rounds</th></tr>" + "".join(
               f'<tr><td><a href="#clause-{esc(c)}">{esc(c)}</a></td><td class=num>{n}</td>'
               f"<td>{esc(rounds_of(c))}</td></tr>" for c, n in s.violations_by_clause.most_common()) + "</table>"]
    listed: set[int] = set()
    for clause, count in s.violations_by_clause.most_common():
        out.append(f'<h3 id="clause-{esc(clause)}">{esc(clause)}: {count} violation{"s" * (count != 1)}</h3>')
        out.append(_clause_words(clause))
        found = [v for v in s.violations if v.clause == clause]
        for v in found[:VIOLATIONS_SHOWN]:
            where = f"round {v.round}" if v.round is not None else "outside any round"
            frame = facts.frames.get(v.frame) if v.frame is not None else None
            out.append(f'<div class="violation"><p><b>{esc(where)}</b>, frame {esc(v.frame)}: {esc(v.message)}</p>'
                       + (_frame_html(frame) if frame else "")
                       + _round_frames(facts, v.round, v.frame, listed) + pictures.of_round(v.round) + "</div>")
        if len(found) > VIOLATIONS_SHOWN:
            out.append(f"<p>… and {len(found) - VIOLATIONS_SHOWN} more of {esc(clause)} in the journal.</p>")
    return "\n".join(out)


def _unplayed(facts: SessionFacts, pictures: _Pictures) -> str:
    oracle, s = facts.oracle, facts.summary
    no_rolls = [r.round for r in oracle.rounds if r.no_roll]
    items = []
    for round_no, why in sorted(facts.failures.items()):
        items.append(f"<li><b>round {round_no} failed</b>: {esc(why)}{pictures.of_round(round_no)}</li>")
    for round_no in oracle.voided_rounds:
        items.append(f"<li><b>round {round_no} voided</b> by a RESET or HELLO mid-round (every wager returned; "
                     "not a violation)</li>")
    for round_no in s.incomplete_rounds:
        items.append(f"<li><b>round {round_no} incomplete</b>: the journal ends before it was settled and cleared</li>")
    for round_no in no_rolls:
        items.append(f"<li><b>round {round_no}: no roll</b>, a die not flat: every wager returned "
                     f"({esc(phase_clause(s.game, 'no_roll'))}){pictures.of_round(round_no)}</li>")
    if facts.abandoned:
        items.append(f"<li class=info>rounds opened after the last one and closed unplayed: "
                     f"{esc(', '.join(map(str, facts.abandoned)))}</li>")
    body = f"<ul>{''.join(items)}</ul>" if items else "<p>None: every round was played and settled.</p>"
    return "<h2>Failed, voided and no-roll rounds</h2>" + body


def _return(facts: SessionFacts) -> str:
    s = facts.summary
    observed, exact = s.observed_rtp, s.expected_rtp
    interval = return_interval(facts.oracle.rounds, CONFIDENCE)
    text = (f"<p>Staked {s.staked} and returned {s.returned} (minor units) over {s.rounds} rounds: observed "
            f"return {_pct(observed)}")
    if interval:
        inside = exact is not None and interval[0] <= float(exact) <= interval[1]
        text += (f" ({100 * CONFIDENCE:g}% interval {_pct(interval[0])} to {_pct(interval[1])}, rounds as the "
                 f"independent units)")
    text += f"; the exact return of the wagers played, weighted by stake, is {_pct(exact)}"
    if interval and exact is not None:
        text += (": inside the interval, as chance allows." if inside else
                 ": OUTSIDE the interval. Over a long session that points at settlement or the outcomes; "
                 "over a few rounds it can be chance.")
    text += "</p>"
    chart = ""
    if observed is not None:
        chart = figure(picture_of(charts.intervals(
            [("observed return", float(observed), *(interval or (None, None)))],
            title="return to player", xlabel="returned / staked", reference=float(exact) if exact is not None else None,
            reference_label="exact RTP of the wagers played"),
            "The observed return with its interval, against the exact return of the wagers played."))
    game, rules = get_game(s.game), facts.oracle.rules
    stakes = facts.stakes_by_bet
    rows = "".join(f"<tr><td>{esc(bet)}</td><td class=num>{stake}</td>"
                   f"<td class=num>{_pct(game.rtp(bet, rules))}</td></tr>"
                   for bet, stake in sorted(stakes.items(), key=lambda kv: -kv[1]))
    table = (f"<details><summary>stakes by bet ({len(stakes)} bets)</summary><table><tr><th>bet</th>"
             f"<th>staked</th><th>exact RTP</th></tr>{rows}</table></details>") if stakes else ""
    return "<h2>Return to player</h2>" + text + chart + table


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
        out.append(f"<p>{esc(s.coverage.line().capitalize().removesuffix('...'))}.</p>")
        if covered:
            out.append(f"<details><summary>covered</summary><p>{'; '.join(covered)}</p></details>")
        if missing:
            out.append("<ul>" + "".join(f"<li>{esc(c.title)}: {esc(why)}</li>" for c, why in missing) + "</ul>")
    if s.lucky_draw is not None:
        verdict = s.lucky_draw
        out.append(f"<p class={'fail' if verdict.verdict == 'fail' else 'pass'}>{esc(verdict.line())}</p>")
    return "".join(out)


def _latencies(facts: SessionFacts) -> str:
    lat = facts.latencies
    if not lat:
        return "<h2>Reply latencies</h2><p>No request of the bench was answered.</p>"
    deadline = (facts.header.get("phases") or {}).get("reply_s")
    rows = ""
    for kind, values in lat.items():
        ms = sorted(v * 1000 for v in values)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        rows += (f"<tr><td>{esc(kind)}</td><td class=num>{len(ms)}</td><td class=num>{statistics.median(ms):.2f}</td>"
                 f"<td class=num>{p95:.2f}</td><td class=num>{ms[-1]:.2f}</td></tr>")
    chart = figure(picture_of(charts.histograms(lat, xlabel="reply latency (ms)", ylabel="replies", scale=1000),
                              "How long the controller took to answer each kind of request, on the bench's clock "
                              "(from the request's first sending to the answer's arrival)."))
    return ("<h2>Reply latencies</h2>"
            + (f"<p>The bench waits at most {deadline:g} s for a reply (docs/protocol.md).</p>" if deadline else "")
            + "<table><tr><th>request → answer</th><th>count</th><th>median (ms)</th><th>95th percentile (ms)</th>"
            f"<th>longest (ms)</th></tr>{rows}</table>" + chart)


def _outcome_text(outcome) -> str:
    if outcome is None:
        return "-"
    if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], tuple):
        return ", ".join("-".join(map(str, roll)) for roll in outcome)
    if isinstance(outcome, (tuple, list)):
        return " ".join(map(str, outcome))
    return str(outcome)


def _rounds(facts: SessionFacts) -> str:
    rounds = facts.oracle.rounds
    rows = "".join(
        f"<tr><td class=num>{r.round}</td><td>{'NO ROLL' if r.no_roll else esc(_outcome_text(r.outcome))}</td>"
        f"<td>{esc(', '.join(f'{lk.bet} pays {lk.pays}' for lk in r.lucky))}</td><td class=num>{r.wagers}</td>"
        f"<td class=num>{r.staked}</td><td class=num>{r.returned}</td><td class=num>{r.expected}</td>"
        f"<td class='num {'fail' if r.violations else ''}'>{r.violations}</td></tr>"
        for r in rounds[:ROUNDS_LISTED])
    more = (f"<p>… and {len(rounds) - ROUNDS_LISTED} more rounds in the journal.</p>"
            if len(rounds) > ROUNDS_LISTED else "")
    return ("<h2>Every round</h2><details open><summary>rounds settled and cleared</summary><table><tr><th>round</th>"
            "<th>outcome</th><th>Lucky Numbers</th><th>wagers</th><th>staked</th><th>returned</th>"
            f"<th>the rules say</th><th>violations</th></tr>{rows}</table>{more}</details>")


def _integrity(facts: SessionFacts) -> str:
    r = facts.replayed
    lines = [f"line {p.line}: {p.what}" for p in r.chain.problems] + list(r.decode_problems) + list(r.notes)
    if r.chain.torn_tail:
        lines.append("the last line was cut off mid-write (a crash): that round is lost")
    check = f"bench replay {facts.journal}" + (f" --head {facts.expected_head}" if facts.expected_head else
                                               " --head $(cat session.head)")
    return ("<h2>The journal</h2>" + (f"<ul>{''.join(f'<li>{esc(x)}</li>' for x in lines)}</ul>" if lines else
                                      "<p>Every record verified; nothing to note.</p>")
            + f"<p>To verify it again and judge every frame anew:</p><pre>{esc(check)}</pre>")


def render(facts: SessionFacts) -> str:
    """The report's HTML, from the facts alone (same facts, same page)."""
    pictures = _Pictures(facts)
    h = facts.header
    sections = [
        f"<h1>Session report: {esc(_title(h['game']))}</h1>",
        _verdict(facts),
        _provenance(facts),
        _violations(facts, pictures),
        _unplayed(facts, pictures),
        _return(facts),
        _coverage(facts),
        _latencies(facts),
        _rounds(facts),
        _integrity(facts),
    ]
    return page(f"bench session report: {h['game']} ({_when(facts.first_wall)})", "\n".join(sections))


def write_session_report(journal: str | Path, path: str | Path, expected_head: str | None = None) -> Path:
    """Read the journal and write its report to ``path``."""
    return write_facts_report(read_session(journal, expected_head), path)


def write_report_beside(journal: str | Path, path: str | Path, expected_head: str | None = None) -> Path | None:
    """``write_session_report`` for ``bench run``: the session is over and
    its verdict stands whatever happens here, so a report that cannot be
    written is a warning on stderr, not a lost session."""
    try:
        return write_session_report(journal, path, expected_head)
    except Exception as err:       # noqa: BLE001 (the journal, summary and JUnit are already written)
        log.warning("bench run: warning: the session report %s was not written: %r", path, err)
        return None


def write_facts_report(facts: SessionFacts, path: str | Path) -> Path:
    """The report of ``facts``, written whole and then moved into place, so
    that a reader never sees half a page."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(render(facts), encoding="utf-8")
    os.replace(partial, path)
    return path
