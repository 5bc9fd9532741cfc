"""The session report: one self-contained HTML page a regulator can file
and a vendor can sign, built from the session's journal alone
(``bench.report.session_facts.read_session``). ``bench run`` writes it as
DIR/report.html, ``bench replay JOURNAL --report FILE`` writes the same page;
a pytest run's journal (``pytest --controller``) gives it too, by scenario.

In the shared report frame (``tablebench_io.report_page``): the verdict
(a pass that nothing kept apart vouches for, no head hash and no seal
checked, is a caution, not a pass), the provenance (dates, software, the
journal's head hash, the design's and submission's SHA-256, named as shipped
when they are, the seeds, the controller and its HELLO). Then the violations
by clause with the regulation's own words, one card per finding (a clause
broken the same way for every wager of a round is one finding with a count,
``bench.report.findings``), each with its round (and scenario), the frame
decoded and a picture of the round's outcome; the rounds that failed, were
voided or were no rolls, and the probe rounds whose outcome the bench staged;
the observed return of the ordinary rounds against the exact RTP of their
wagers; the controller's reply latencies; every round in a table. Those
figures (the return, the outcome classes, the latencies) are drawn in
``bench.report.page_figures``.
"""

from __future__ import annotations

import os
import logging
from pathlib import Path
from typing import Callable

from bench.oracle import phase_clause
from bench.report.findings import findings
from bench.report.message_text import message_text
from bench.report.outcome_picture import outcome_picture, reading_words, why_no_picture
from bench.report.page_figures import _coverage, _latencies, _return
from bench.rules.regulation_text import clause_text, source_of
from bench.report.session_facts import SessionFacts, no_roll_rounds, read_session
from bench.report.session_head import (ROUNDS_OF_A_KIND, rounds_listed, session_provenance, game_title, session_verdict,
                                       sealed_before_cut, verify_command)
from tablebench_io.report_page import (FAIL, PASS, Input, Provenance, Verdict, code, esc, figure,
                                       picture_of, report_page, utc)

log = logging.getLogger(__name__)   # unconfigured, a warning still reaches stderr (logging.lastResort)


FINDINGS_SHOWN = 25            # a clause's findings shown one by one; the rest are counted
PICTURES_SHOWN = 24            # outcome pictures in one report
# The every-round table of a long session: the first and the last rounds, and between them those
# with a violation; the rounds left out are counted where they would be.
ROUNDS_FIRST = ROUNDS_LAST = 250
ROUNDS_MARKED = 250            # rounds with a violation listed between the first and the last
MARKED = ' style="background:#fde7e4"'     # the frame a violation names, among its round's frames


def _money(amount) -> str:
    """Minor units with their digits grouped (1,177,954): a number, or what the round has instead."""
    return f"{amount:,}" if isinstance(amount, int) and not isinstance(amount, bool) else esc(amount)


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
            # A pytest run's readings are its scenarios' (no plant of the bench's): said once, in the section.
            return "" if not self.facts.plants else f"<p class=info>round {round_no}: no plant reading in the journal</p>"
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
            f"<td>{code(message_text(frame.message))}</td><td>{code(frame.raw.rstrip())}</td>"
            f"<td>{esc(utc(frame.wall))}<br>journal record {esc(frame.record)}, wire {frame.place}</td>"
            f"</tr></table>")


def _round_frames(facts: SessionFacts, round_no: int | None, highlight: int | None, listed: set[int]) -> str:
    """Every frame of the round, once a round (at its first violation)."""
    if round_no is None:       # a frame outside any round: no round's frames to show
        return ""
    frames = facts.round_frames.get(round_no)
    if not frames or round_no in listed:
        return ""
    listed.add(round_no)
    rows = "".join(
        f"<tr{MARKED if f.index == highlight else ''}><td class=num>{f.index}</td>"
        f"<td>{'→' if f.direction == 'tx' else '←'}</td><td>{code(message_text(f.message))}</td></tr>"
        for f in frames)
    total = facts.round_frame_counts.get(round_no, len(frames))
    more = (f"<p>… and {total - len(frames)} more frames of round {round_no} in the journal.</p>"
            if total > len(frames) else "")
    return (f"<details><summary>every frame the oracle judged in round {round_no} ({total})</summary>"
            f"<table><tr><th>frame</th><th></th><th>message (→ bench to controller, ← controller to bench)</th>"
            f"</tr>{rows}</table>{more}</details>")


def _scenario_name(nodeid: str) -> str:
    """A scenario's test id without its file: the scenario and its example."""
    return nodeid.split("::", 1)[-1]


def _rounds_words(rounds: list[int]) -> str:
    if not rounds:
        return "outside any round"
    return f"round {rounds[0]}" if len(rounds) == 1 else "rounds " + rounds_listed(rounds)


def _finding_card(facts: SessionFacts, finding, pictures: _Pictures, listed: set[int]) -> str:
    v = finding.first
    where = f"round {v.round}" if v.round is not None else "outside any round"
    scenario = facts.scenario_of(v.frame, v.round)
    frame = facts.frames.get(v.frame) if v.frame is not None else None
    count = (f'<span class="count">{finding.count} violations</span> like this one in {esc(where)}: '
             if finding.count > 1 else f"<b>{esc(where)}</b>, frame {esc(v.frame)}: ")
    head = (f"<p>{count}{esc(v.message)}</p>"
            + (f"<p class=info>scenario {code(_scenario_name(scenario))}</p>" if scenario else ""))
    rest = ""
    if finding.count > 1:
        rows = "".join(f"<tr><td class=num>{esc(x.frame)}</td><td>{esc(x.message)}</td></tr>"
                       for x in finding.violations)
        rest = (f"<details><summary>all {finding.count} of them, frame by frame</summary><table><tr><th>frame</th>"
                f"<th>what the oracle found</th></tr>{rows}</table></details>")
    return ('<div class="card">' + head + (_frame_html(frame) if frame else "") + rest
            + _round_frames(facts, v.round, v.frame, listed) + pictures.of_round(v.round) + "</div>")


def _violations(facts: SessionFacts, pictures: _Pictures) -> str:
    s = facts.summary
    if not s.violation_count and not facts.replayed.intact:
        sealed = sealed_before_cut(facts)
        vouched = (f"only the frames of {sealed} are vouched for, by the bench key's seals; nothing vouches for "
                   "those after them" if sealed else "nothing vouches for the frames that were judged")
        return ("<h2>Violations by clause</h2><p class=fail>None found, but the journal is not as the bench "
                f"wrote it (see The journal, below): {esc(vouched)}.</p>")
    if not s.violation_count:
        return ("<h2>Violations by clause</h2><p class=pass>None: every frame was what the regulation and the "
                "protocol ask.</p>")
    found = findings(s.violations)

    def rounds_of(clause: str) -> list[int]:
        """Every round with a violation of the clause (counted by round, kept or not)."""
        return sorted(r for r, clauses in s.clauses_by_round.items() if r is not None and clauses.get(clause))

    rows = "".join(
        f'<tr><td><a href="#clause-{esc(c)}">{esc(c)}</a></td><td class=num>{n}</td>'
        f"<td class=num>{sum(1 for f in found if f.clause == c)}</td><td class=num>{len(rounds_of(c))}</td>"
        f"<td>{esc(rounds_listed(rounds_of(c)) or 'outside any round')}</td></tr>"
        for c, n in s.violations_by_clause.most_common())
    out = ["<h2>Violations by clause</h2>",
           "<p>One card per finding: the violations of a clause in one round that differ only in the wager "
           "and the amounts are one finding, shown once with their count.</p>",
           "<table><tr><th>clause</th><th>violations</th><th>findings</th><th>rounds affected</th>"
           f"<th>which rounds</th></tr>{rows}</table>"]
    if not facts.plants:
        why = ("a pytest run: each scenario gives its own readings" if facts.pytest_run else
               "a monitor hears the table's traffic, not its plant" if facts.header.get("monitor") is not None
               else "the session recorded none")
        out.append(f"<p class=info>The journal holds no plant reading ({why}), so no round's outcome is "
                   "drawn.</p>")
    listed: set[int] = set()
    for clause, count in s.violations_by_clause.most_common():
        mine = [f for f in found if f.clause == clause]
        out.append(f'<h3 id="clause-{esc(clause)}">{esc(clause)}: {count} violation{"s" * (count != 1)} '
                   f'in {len(mine)} finding{"s" * (len(mine) != 1)}, '
                   f"{esc(_rounds_words(rounds_of(clause)))}</h3>")
        out.append(_clause_words(clause))
        for finding in mine[:FINDINGS_SHOWN]:
            out.append(_finding_card(facts, finding, pictures, listed))
        if len(mine) > FINDINGS_SHOWN:
            rest = mine[FINDINGS_SHOWN:]
            out.append(f"<p>… and {len(rest)} more findings of {esc(clause)} "
                       f"({sum(f.count for f in rest)} violations) in the journal.</p>")
        kept = sum(f.count for f in mine)
        if count > kept:
            out.append(f"<p>… and {count - kept} more violations of {esc(clause)} in the journal: the report "
                       f"keeps the first {kept} of a clause.</p>")
    return "\n".join(out)


def _unplayed(facts: SessionFacts, pictures: _Pictures) -> str:
    oracle, s = facts.oracle, facts.summary
    no_rolls = no_roll_rounds(oracle)
    items = []
    failed = sorted(facts.failures.items())
    for round_no, why in failed[:ROUNDS_OF_A_KIND]:
        items.append(f"<li><b>round {round_no} failed</b>: {esc(why)}{pictures.of_round(round_no)}</li>")
    items += _more_rounds(len(failed), "failed rounds")
    for round_no in oracle.voided_rounds[:ROUNDS_OF_A_KIND]:
        items.append(f"<li><b>round {round_no} voided</b> by a RESET or HELLO mid-round (every wager returned; "
                     "not a violation)</li>")
    items += _more_rounds(len(oracle.voided_rounds), "voided rounds")
    for round_no in s.incomplete_rounds:
        items.append(f"<li><b>round {round_no} incomplete</b>: the journal ends before it was settled and cleared</li>")
    for round_no in no_rolls[:ROUNDS_OF_A_KIND]:
        staged = s.probe_rounds.get(round_no)
        items.append(f"<li><b>round {round_no}: no roll</b>, a die not flat: every wager returned "
                     f"({esc(phase_clause(s.game, 'no_roll'))})"
                     + (f' <span class="caution">staged probe: {esc(staged)}</span>' if staged else "")
                     + f"{pictures.of_round(round_no)}</li>")
    items += _more_rounds(len(no_rolls), "no-roll rounds")
    if facts.abandoned:
        items.append(f"<li class=info>rounds opened after the last one and closed unplayed: "
                     f"{esc(', '.join(map(str, facts.abandoned)))}</li>")
    body = f"<ul>{''.join(items)}</ul>" if items else "<p>None: every round was played and settled.</p>"
    return "<h2>Failed, voided and no-roll rounds</h2>" + body


def _more_rounds(count: int, what: str) -> list[str]:
    return ([f"<li class=info>… and {count - ROUNDS_OF_A_KIND} more {what} in the journal</li>"]
            if count > ROUNDS_OF_A_KIND else [])


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
    probes = facts.summary.probe_rounds
    by_scenario = facts.pytest_run

    def outcome(r) -> str:
        text = "NO ROLL" if r.no_roll else esc(_outcome_text(r.outcome))
        return text + (f' <span class="caution">staged probe: {esc(probes[r.round])}</span>'
                       if r.round in probes else "")

    def scenario(r) -> str:
        names = facts.round_scenarios.get(r.round) or []
        return f"<td>{'<br>'.join(code(_scenario_name(n)) for n in names) or '-'}</td>"
    def row(r) -> str:
        return (f"<tr><td class=num>{r.round}</td>{scenario(r) if by_scenario else ''}<td>{outcome(r)}</td>"
                f"<td>{esc(', '.join(f'{lk.bet} pays {lk.pays}' for lk in r.lucky))}</td>"
                f"<td class=num>{r.wagers}</td><td class=num>{_money(r.staked)}</td>"
                f"<td class=num>{_money(r.returned)}</td><td class=num>{_money(r.expected)}</td>"
                f"<td class='num {'fail' if r.violations else ''}'>{r.violations}</td></tr>")

    columns = 9 if by_scenario else 8
    parts, left_out = [], 0
    for item in _rounds_shown(rounds):
        if isinstance(item, int):
            left_out += item
            parts.append(f"<tr><td colspan={columns} class=info>… {item} round{'s' * (item != 1)} "
                         "left out here (in the journal)</td></tr>")
        else:
            parts.append(row(item))
    rows = "".join(parts)
    more = (f"<p>{len(rounds) - left_out} of the {len(rounds)} rounds are listed: the first {ROUNDS_FIRST}, the "
            f"last {ROUNDS_LAST} and, between them, those with a violation (at most {ROUNDS_MARKED}).</p>"
            if left_out else "")
    note = (f"<p>Rounds {', '.join(map(str, sorted(probes)))} are probe rounds: the bench staged their outcome "
            "(left out of the return).</p>" if probes else "")
    return ("<h2>Every round</h2>" + note + "<details open><summary>rounds settled and cleared</summary><table><tr>"
            "<th>round</th>" + ("<th>scenario</th>" if by_scenario else "")
            + "<th>outcome</th><th>Lucky Numbers</th><th>wagers accepted</th><th>staked</th><th>returned</th>"
            f"<th>the rules say</th><th>violations found</th></tr>{rows}</table>{more}</details>")


def _rounds_shown(rounds) -> list:
    """The rows of the every-round table, in order: a round's summary, or the
    count of the rounds left out at that place. A long session's table is
    bounded, and still shows how it ended and every violation up to
    ROUNDS_MARKED of them."""
    count = len(rounds)
    if count <= ROUNDS_FIRST + ROUNDS_LAST + ROUNDS_MARKED:
        return list(rounds)
    shown: list = list(rounds[:ROUNDS_FIRST])
    marked, gap = 0, 0
    for r in rounds[ROUNDS_FIRST:count - ROUNDS_LAST]:
        if r.violations and marked < ROUNDS_MARKED:
            if gap:
                shown.append(gap)
            shown.append(r)
            marked, gap = marked + 1, 0
        else:
            gap += 1
    if gap:
        shown.append(gap)
    return shown + list(rounds[count - ROUNDS_LAST:])


def _scenarios(facts: SessionFacts) -> str:
    """A pytest run's journal: the scenarios it played, by feature, with their rounds and violations."""
    if not facts.pytest_run:
        return ""
    by_scenario: dict[str, list[int]] = {}
    for round_no, names in facts.round_scenarios.items():
        for name in names:
            by_scenario.setdefault(name, []).append(round_no)
    found: dict[str, int] = {}
    for v in facts.summary.violations:
        scenario = facts.scenario_of(v.frame, v.round)
        if scenario:
            found[scenario] = found.get(scenario, 0) + 1
    features: dict[str, list[str]] = {}
    for name in by_scenario:
        features.setdefault(name.split("::", 1)[0], []).append(name)
    out = [f"<h2>Scenarios</h2><p>{len(by_scenario)} scenarios of the pytest run recorded in this journal, in "
           "the order they were played. A scenario's own verdict (a step that failed) is in the run's report "
           "(pytest --controller-report); here is what the oracle found in its frames.</p>"]
    for feature, names in features.items():
        rows = "".join(
            f"<tr><td>{code(_scenario_name(n))}</td><td>{esc(', '.join(map(str, sorted(set(by_scenario[n])))))}</td>"
            f"<td class='num {'fail' if found.get(n) else ''}'>{found.get(n, 0)}</td></tr>" for n in names)
        out.append(f"<h3>{esc(feature)}</h3><table><tr><th>scenario</th><th>rounds</th><th>violations found</th>"
                   f"</tr>{rows}</table>")
    return "\n".join(out)


def _integrity(facts: SessionFacts) -> str:
    r = facts.replayed
    lines = [f"line {p.line}: {p.what}" for p in r.chain.problems] + list(r.decode_problems) + list(r.notes)
    hidden = sum(getattr(found, "more", 0) for found in (r.chain.problems, r.decode_problems))
    if hidden:
        lines.append(f"… and {hidden} more problems of the same kinds")
    if r.chain.torn_tail:
        lines.append("the last line was cut off mid-write (a crash): that round is lost")
    check = verify_command(facts)
    return ("<h2>The journal</h2>" + (f"<ul>{''.join(f'<li>{esc(x)}</li>' for x in lines)}</ul>" if lines else
                                      "<p>Every record verified; nothing to note.</p>")
            + f"<p>To verify it again and judge every frame anew:</p><pre>{esc(check)}</pre>")


def render(facts: SessionFacts) -> str:
    """The report's HTML, from the facts alone (same facts, same page)."""
    pictures = _Pictures(facts)
    h = facts.header
    kind = "pytest run's journal" if facts.pytest_run else "session report"
    heading = "Pytest run" if facts.pytest_run else "Session"
    if facts.header.get("monitor") is not None:
        kind, heading = "monitor's journal", "Monitored table"
    if facts.replayed_at is not None:       # a replay says so; the provenance says when it ran and what it verified
        kind = f"{kind.removesuffix(' report')} replayed ({utc(facts.replayed_at)})"
        heading = f"Replay of a {'pytest run' if facts.pytest_run else heading.lower()}"
    return report_page(
        kind=kind, title=f"bench {kind}: {h['game']} ({utc(facts.first_wall)})",
        heading=f"{heading}: {game_title(h['game'])}",
        verdict=session_verdict(facts), provenance=session_provenance(facts),
        sections=[_violations(facts, pictures), _unplayed(facts, pictures), _scenarios(facts), _return(facts),
                  _coverage(facts), _latencies(facts), _rounds(facts), _integrity(facts)])


def write_session_report(journal: str | Path, path: str | Path, expected_head: str | None = None) -> Path:
    """Read the journal and write its report to ``path``."""
    return write_facts_report(read_session(journal, expected_head), path)


def write_report_beside(journal: str | Path, path: str | Path, expected_head: str | None = None, *,
                        verdict: tuple[bool, str, list[str]] | None = None,
                        facts: Callable[[], SessionFacts] | None = None) -> tuple[Path | None, bool]:
    """``write_session_report`` for ``bench run``: (the page written or None,
    whether it is whole). ``facts``: the session's own (``SessionOutcome.report_facts``,
    gathered as the journal was written), else the journal is read. The session is
    over and its verdict stands whatever happens here: a page that cannot be built
    whole is written short, with ``verdict`` (passed, the headline, its reasons) and
    why the rest is missing; one that cannot be written at all is a warning on stderr."""
    try:
        if facts is not None:
            return write_facts_report(facts(), path), True
        return write_session_report(journal, path, expected_head), True
    except OSError as err:         # the folder or the disk: a short page would not fit either
        log.warning("bench run: warning: the session report %s was not written: %s", path, err.strerror or err)
        return None, False
    except Exception as err:       # noqa: BLE001 (the journal, summary and JUnit are already written)
        if verdict is None:
            log.warning("bench run: warning: the session report %s was not written: %r", path, err)
            return None, False
        try:
            return _write_whole(path, _short_page(journal, verdict, err)), False
        except OSError as again:
            log.warning("bench run: warning: the session report %s was not written: %s", path,
                        again.strerror or again)
            return None, False


def _short_page(journal: str | Path, verdict: tuple[bool, str, list[str]], err: Exception) -> str:
    passed, headline, reasons = verdict
    again = f"bench replay {journal} --report report.html"
    return report_page(
        kind="session report (short)", title=f"bench session report (short): {Path(journal).parent.name}",
        heading="Session (short report)", verdict=Verdict(PASS if passed else FAIL, headline, reasons),
        provenance=Provenance(date=utc(None), inputs=[Input("journal", str(journal))], seeds="not read",
                              engine="not read", repeat=again),
        sections=[f"<p class=info>The full report could not be built: {esc(type(err).__name__)}: {esc(err)}. "
                  f"The journal holds everything; to judge it again and try the full report once more:</p>"
                  f"<pre>{esc(again)}</pre>"])


def write_facts_report(facts: SessionFacts, path: str | Path) -> Path:
    """The report of ``facts``, written whole and then moved into place, so
    that a reader never sees half a page."""
    return _write_whole(path, render(facts))


def _write_whole(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)     # never half a page left behind (a full disk)
        raise
    return path
