"""The dossier's index page (on the shared report frame) and its JSON lines.

The page reads top down as a lab's deliverable: the overall verdict; the
provenance (versions, the plan's digest, every input's, the seeds, the twin's
fingerprint, the command that repeats it); the steps with their pages; the
clause matrix, every testable clause a row; what was not exercised and why;
and every page and journal the steps produced, linked.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.certify.matrix import NOT_EXERCISED, UNEXPLAINED, Row, counts
from bench.certify.plan import Plan
from bench.certify.step_records import CAUTION, FAIL, PASS
from tablebench_io.json_lines import JsonLines
from tablebench_io.report_page import Input, Provenance, Verdict, code, esc, report_page, utc

INDEX, LINES, KIND = "index.html", "certify.jsonl", "certify"
STATE_WORDS = {PASS: "pass", FAIL: "FAIL", CAUTION: "caution", NOT_EXERCISED: "not exercised",
               UNEXPLAINED: "UNEXPLAINED", "error": "ERROR"}


@dataclass
class Judgement:
    """The dossier's verdict: its state, the exit status, the headline and the reasons."""
    state: str
    status: int
    headline: str
    reasons: list[str]

    @property
    def passed(self) -> bool:
        return self.state == PASS


def judge(finished: list, rows: list[Row], stopped: str | None, error_status: int | None) -> Judgement:
    from tablebench_io.commandline import Exit
    tally = counts(rows)
    failed_rows = [r.clause for r in rows if r.state == FAIL]
    failed_steps = [f.name for f in finished if f.outcome.status == FAIL]
    errors = [f"{f.name}: {f.outcome.summary}" for f in finished if f.outcome.status == "error"]
    unexplained = [r.clause for r in rows if r.state == UNEXPLAINED]
    reasons = []
    if stopped:
        reasons.append(f"stopped early: {stopped}")
    reasons += errors
    if failed_rows:
        reasons.append(f"{len(failed_rows)} clause(s) broken: {', '.join(failed_rows[:12])}")
    if failed_steps:
        reasons.append(f"failed steps: {', '.join(failed_steps)}")
    if unexplained:
        reasons.append(f"{len(unexplained)} clause(s) neither exercised nor explained: {', '.join(unexplained[:12])}")
    cautions = [r.clause for r in rows if r.state == CAUTION]
    if cautions:
        reasons.append(f"{len(cautions)} clause(s) exercised without a verdict (too few runs): {', '.join(cautions[:8])}")
    exercised = tally.get(PASS, 0) + tally.get(FAIL, 0) + tally.get(CAUTION, 0)
    words = f"{exercised} of {len(rows)} clauses exercised, {tally.get(NOT_EXERCISED, 0)} not (each with its reason)"
    if errors:
        status = error_status if error_status in (Exit.BAD_INPUT, Exit.LINK, Exit.DISK_FULL) else Exit.INTERNAL
        return Judgement(FAIL, status, "INCOMPLETE: a step could not do its job; " + words, reasons)
    if stopped:
        return Judgement(FAIL, Exit.VIOLATION, "FAIL: the link failed its conformance checks; nothing else was run",
                         reasons)
    if failed_rows or failed_steps:
        return Judgement(FAIL, Exit.VIOLATION, f"FAIL: {len(failed_rows)} clause(s) broken; " + words, reasons)
    if unexplained or cautions:
        return Judgement(CAUTION, Exit.VIOLATION if unexplained else Exit.OK,
                         "CAUTION: " + ("clauses left unexplained; " if unexplained else "") + words, reasons)
    return Judgement(PASS, Exit.OK, "PASS: every clause exercised passed; " + words, reasons)


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def twin_fingerprint(finished: list) -> dict[str, Any] | None:
    """The twin's fingerprint as the steps recorded it (a session's, a campaign's)."""
    for step in finished:
        twin = step.outcome.seeds.get("twin")
        if isinstance(twin, dict):
            return twin
    return None


def provenance(plan: Plan, finished: list, out: Path) -> Provenance:
    inputs = [Input("plan", plan.path, plan.digest), Input("jurisdiction profile", plan.profile.path, plan.profile.digest),
              Input("submission", plan.submission, _digest(plan.submission))]
    inputs += [Input("design", design, _digest(design)) for design in plan.designs]
    seeds = [f"sessions {plan.first_seed}–{plan.first_seed + max(plan.sessions - 1, 0)}" if plan.sessions else "no session",
             f"scenarios' emulated controllers {plan.scenario_seed}", f"campaigns from {plan.campaign_seed}"]
    twin = twin_fingerprint(finished)
    engine = (f"campaigns on {'Ray' + (' at ' + plan.ray_address if plan.ray_address else '') if plan.engine == 'ray' else 'the local pool'}, "
              f"{plan.workers} worker(s); the twin: "
              + (", ".join(f"{k} {v}" for k, v in twin.items() if not isinstance(v, dict)) if twin else "not run"))
    controller = plan.controller.url + (f" (misbehaving: {plan.controller.misbehave})" if plan.controller.misbehave else "")
    if plan.controller.emulated:        # docs/certify.md 2a: it stands in for the device, over a real link
        controller += ": bench emulate, started for each step behind a real link"
    more = [("lab", esc(plan.lab or "(not named)")), ("controller", code(controller)),
            ("jurisdiction", esc(f"{plan.profile.title}: fairness at {plan.profile.fairness_confidence:g}, "
                                 f"RNG at {plan.profile.rng_confidence:g}"))]
    return Provenance(utc(time.time()), inputs, esc("; ".join(seeds)), esc(engine),
                      f"bench certify {plan.path} --out {out}" + (f" --key {plan.key}" if plan.key else ""), more=more)


def _link(href: str | None, text: str) -> str:
    return f'<a href="{esc(href)}">{esc(text)}</a>' if href else esc(text)


def _steps_section(finished: list) -> str:
    rows = "".join(
        f'<tr data-step="{esc(f.name)}" data-state="{esc(f.outcome.status)}"><td>{esc(f.name)}</td><td>{esc(f.title)}</td>'
        f"<td>{esc(STATE_WORDS.get(f.outcome.status, f.outcome.status))}</td><td>{esc(f.outcome.summary)}</td>"
        f"<td>{' '.join(_link(p, 'page') for p in f.outcome.pages)} {_link(f'steps/{f.name}/stderr.txt', 'log')}</td>"
        f'<td class="num">{f.seconds:.1f} s</td></tr>' for f in finished)
    return ("<h2>Steps</h2><table><tr><th>step</th><th>what</th><th>verdict</th><th>outcome</th><th>evidence</th>"
            f"<th>time</th></tr>{rows}</table>")


def _evidence_html(row: Row) -> str:
    items = []
    for step, ev in row.evidence:
        journal = ""
        if ev.journal:
            lines = (f" lines {', '.join(map(str, ev.lines[:6]))}" + ("…" if len(ev.lines) > 6 else "")
                     if len(ev.lines) != 2 or ev.lines[1] - ev.lines[0] < 2 else f" lines {ev.lines[0]}–{ev.lines[1]}")
            journal = f"; {_link(ev.journal, 'journal')}{esc(lines if ev.lines else '')}"
        note = f" ({esc(ev.note)})" if ev.note else ""
        items.append(f"<li>{esc(STATE_WORDS.get(ev.verdict, ev.verdict))}: {esc(ev.what)}, {esc(ev.amount)}{note}; "
                     f"{_link(ev.page, 'page')}{journal} <small>[{esc(step)}]</small></li>")
    return f"<ul>{''.join(items)}</ul>" if items else esc(row.reason)


def _matrix_section(rows: list[Row]) -> str:
    body = "".join(
        f'<tr id="clause-{esc(r.clause)}" data-clause="{esc(r.clause)}" data-state="{esc(r.state)}"><td style="white-space:nowrap">{code(r.clause)}</td>'
        f"<td><small>{esc(r.words[:220] + ('…' if len(r.words) > 220 else ''))}</small></td>"
        f"<td>{esc(STATE_WORDS.get(r.state, r.state))}</td><td>{_evidence_html(r)}</td></tr>" for r in rows)
    tally = ", ".join(f"{n} {STATE_WORDS.get(s, s)}" for s, n in sorted(counts(rows).items()))
    return (f'<h2>Clause matrix</h2><p>Every testable clause of the jurisdiction\'s regulations: {esc(tally)}.</p>'
            f'<table id="matrix"><tr><th>clause</th><th>the regulation</th><th>verdict</th>'
            f"<th>exercised by (how much, where to look), or why not</th></tr>{body}</table>")


def _not_exercised_section(rows: list[Row]) -> str:
    missing = [r for r in rows if r.state in (NOT_EXERCISED, UNEXPLAINED)]
    if not missing:
        return ""
    items = "".join(f"<li>{code(r.clause)}: {esc(r.reason or 'UNEXPLAINED: no step exercised it and no reason is known')}</li>"
                    for r in missing)
    return f'<h2>Not tested, and why</h2><ul id="not-exercised">{items}</ul>'


def _files_section(finished: list) -> str:
    items = []
    for f in finished:
        for page in f.outcome.pages:
            items.append(f"<li>{_link(page, page)} <small>(page, {esc(f.name)})</small></li>")
        for journal in f.outcome.journals:
            items.append(f"<li>{_link(journal, journal)} <small>(journal, {esc(f.name)})</small></li>")
    extra = f'<li>{_link(LINES, LINES)} (this dossier as JSON lines)</li><li>{_link("manifest.json", "manifest.json")} ' \
            '(every file\'s SHA-256, signed in manifest.sig)</li>'
    return f"<h2>Pages and journals</h2><ul>{''.join(items)}{extra}</ul>"


def write_index(out: Path, plan: Plan, finished: list, rows: list[Row], verdict: Judgement) -> None:
    from bench.certify.runner import write_atomically
    state = {PASS: "pass", FAIL: "fail", CAUTION: "caution"}.get(verdict.state, "fail")
    tally = counts(rows)
    figures = [("clauses", str(len(rows))), ("passed", str(tally.get(PASS, 0))), ("broken", str(tally.get(FAIL, 0))),
               ("not exercised", str(tally.get(NOT_EXERCISED, 0))), ("steps", str(len(finished)))]
    html_text = report_page(kind="certification dossier", title=f"tablebench certification: {plan.game}",
                            heading=f"Certification of {plan.controller.url} ({plan.game}) under {plan.profile.title}",
                            verdict=Verdict(state, verdict.headline, verdict.reasons, figures),
                            provenance=provenance(plan, finished, out),
                            sections=[_steps_section(finished), _matrix_section(rows), _not_exercised_section(rows),
                                      _files_section(finished)])
    write_atomically(out / INDEX, html_text)


def json_records(plan: Plan, finished: list, rows: list[Row], verdict: Judgement, out: Path) -> list[dict]:
    lines = JsonLines(KIND)
    records = [lines.line("step", step=f.name, title=f.title, status=f.outcome.status, summary=f.outcome.summary,
                          exit_statuses=f.statuses, commands=f.commands, seconds=f.seconds, ran_now=f.ran_now,
                          pages=f.outcome.pages, journals=f.outcome.journals) for f in finished]
    records += [lines.line("clause", **r.to_json()) for r in rows]
    records.append(lines.line("verdict", passed=verdict.passed, status=int(verdict.status), state=verdict.state,
                              headline=verdict.headline, reasons=verdict.reasons, dossier=str(out),
                              plan_sha256=plan.digest, twin=twin_fingerprint(finished), counts=counts(rows)))
    return records
