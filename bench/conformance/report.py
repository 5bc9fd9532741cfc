"""What a conformance run files: who was checked, with what, and every check's
verdict; said on the terminal (a header naming what is tested, a line per
check, the failures listed again at the end), as JSON lines (``--json``: each
check, then the run's verdict), as JUnit properties of the suite, and as one
self-contained page in the shared report frame (``--report FILE.html``):
the verdict, the provenance, the failures with their wire logs, then every
check by the section of docs/protocol.md it tests.
"""

from __future__ import annotations

import hashlib
import platform
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.conformance.checks import LINK, SESSION
from bench.conformance.speed import CheckLine
from bench.conformance.suite import FAIL, PASS, SKIP, Result
from bench.report.message_text import message_text
from bench.protocol import Timeouts
from tablebench_io.report_page import (FAIL as FAILED, PASS as PASSED, Input, Provenance, Verdict, code, esc,
                                       file_input, report_page, tablebench_version, utc)

DOC = "docs/protocol.md"


@dataclass
class ConformanceRun:
    """One run of the suite against one controller."""
    controller: str                     # as the user named it: a URL, a device, emulated[:OPTIONS]
    game: str
    submission: str | None              # the rules submission file, if one was given
    paytable: str | None
    timeouts: Timeouts                  # the controller's, as the checks expect them
    versions: tuple[int, ...] | None    # asked for with --protocol; None: what the controller speaks
    command: str = ""
    started: float = field(default_factory=time.time)
    url: str | None = None              # where the suite connected (an emulator's address)
    results: list[Result] = field(default_factory=list)
    finished: float | None = None
    line: CheckLine | None = None       # the link's speed, and what it allowed the checks
    adapter: str | None = None          # the wire format's adapter, "name version"; None: the bench's own protocol

    # -- what the results come to -------------------------------------------------
    @property
    def hello(self) -> dict | None:
        """The controller's HELLO, as it answered the first check."""
        return next((r.hello for r in self.results if getattr(r, "hello", None)), None)

    @property
    def failed(self) -> list[Result]:
        """Required checks that failed: they decide the exit status."""
        return [r for r in self.results if r.counts]

    @property
    def optional_failed(self) -> list[Result]:
        return [r for r in self.results if r.status == FAIL and not r.counts]

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def spoken(self) -> list[int]:
        return sorted({r.version for r in self.results if r.status != SKIP})

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.results)

    def rules_words(self) -> str:
        if self.submission:
            return f"the rules submission {self.submission}"
        return f"the regulation's defaults for {self.game}" + (f", paytable {self.paytable}" if self.paytable else "")

    def submission_sha256(self) -> str | None:
        if not self.submission:
            return None
        try:
            return hashlib.sha256(Path(self.submission).read_bytes()).hexdigest()
        except OSError:
            return None

    def timeouts_words(self) -> str:
        t = self.timeouts
        return (f"byte {t.byte:g} s, frame {t.frame:g} s, response {t.response:g} s, {t.retries} retries "
                "(the controller's, as the checks expect them)")

    @staticmethod
    def hello_words(hello: dict) -> str:
        return message_text(hello)

    # -- the terminal -----------------------------------------------------------------
    def header(self, selected: int) -> str:
        versions = (", ".join(map(str, self.versions)) if self.versions
                    else "1, and 2 if the controller speaks it")
        return "\n".join([
            f"bench conformance (tablebench {tablebench_version()}), {utc(self.started)}",
            f"controller: {self.controller}" + (f" (at {self.url})" if self.url and self.url != self.controller
                                                else ""),
            f"game: {self.game}, judged by {self.rules_words()}",
            f"checks: {selected} selected" + ("" if self.versions else " (more if the controller speaks version 2)")
            + f", protocol versions {versions}; timeouts {self.timeouts_words()}",
            *([f"line: {self.line.words()}"] if self.line is not None else []),
            f"each check's line names the section of {DOC} it tests"])

    def summary_lines(self) -> list[str]:
        lines = []
        if self.failed or self.optional_failed:
            lines.append("failures:")
            for r in self.failed:
                lines.append(f"  FAIL            {r.id}: {r.check.section}: {r.detail}")
            for r in self.optional_failed:
                lines.append(f"  FAIL (optional) {r.id}: {r.check.section}: {r.detail}")
        lines.append(f"{self.count(PASS)} passed, {len(self.failed)} failed, {len(self.optional_failed)} optional "
                     f"failed, {self.count(SKIP)} skipped ({self.seconds:.1f} s)")
        lines.append("PASS" if self.passed else f"FAIL: {len(self.failed)} required check"
                                                 f"{'s' * (len(self.failed) != 1)} failed")
        return lines

    # -- JSON lines ------------------------------------------------------------------
    def check_json(self, r: Result) -> dict:
        out = {"check": r.id, "name": r.check.name, "version": r.version, "section": r.check.section,
               "status": r.status, "optional": r.check.optional, "seconds": round(r.seconds, 3),
               "detail": r.detail}
        if r.wire_log:
            out["wire_log"] = r.wire_log.splitlines()
        return out

    def verdict_json(self, status: int, report: str | None = None) -> dict:
        return {"verdict": True, "passed": self.passed, "status": status, "tablebench": tablebench_version(),
                "controller": self.controller, "url": self.url, "game": self.game, "rules": self.rules_words(),
                "submission_sha256": self.submission_sha256(), "hello": self.hello,
                "versions": self.spoken, "started": utc(self.started),
                "checks": len(self.results), "pass": self.count(PASS), "fail": len(self.failed),
                "optional_fail": len(self.optional_failed), "skip": self.count(SKIP),
                "failed": [r.id for r in self.failed], "seconds": round(self.seconds, 3),
                "command": self.command, **({"line": self.line.to_json()} if self.line is not None else {}),
                **({"report": report} if report else {})}

    # -- JUnit -----------------------------------------------------------------------
    def junit_properties(self) -> dict[str, str]:
        """The suite's provenance, for a CI server to show beside the cases."""
        props = {"tablebench": tablebench_version(), "python": platform.python_version(),
                 "controller": self.controller, "url": self.url or self.controller, "game": self.game,
                 "rules": self.rules_words(), "started": utc(self.started),
                 "timeouts": self.timeouts_words(), "command": self.command,
                 **({"line": self.line.words()} if self.line is not None else {}),
                 "hello": message_text(self.hello) if self.hello else "none: the controller never answered a HELLO"}
        digest = self.submission_sha256()
        if digest:
            props["submission_sha256"] = digest
        return props


def command_line(argv: list[str] | None = None) -> str:
    """How the run was asked for, to repeat it."""
    return shlex.join(["bench", *(sys.argv[1:] if argv is None else argv)])


# -- the page -------------------------------------------------------------------------
def checked_words(run: ConformanceRun) -> str:
    """The layers the run's checks actually tested, with how many each, and
    through which adapter: never "the link layer" when no link check ran."""
    ran = [r for r in run.results if r.status != SKIP]
    link = sum(1 for r in ran if r.check.layer == LINK)
    session = sum(1 for r in ran if r.check.layer == SESSION)
    parts = []
    if session:
        parts.append(f"the session layer ({session} check{'s' * (session != 1)})"
                     + (f" through the adapter {run.adapter}" if run.adapter else ""))
    if link:
        owner = "the adapter's own" if run.adapter else "the"
        parts.append(f"{owner} link layer ({link} check{'s' * (link != 1)})")
    said = " and ".join(parts) or "no layer: no check ran"
    if not link:
        said += "; no link-layer check ran, so the link layer is not checked"
    return said


def _verdict(run: ConformanceRun) -> Verdict:
    figures = [("checks", f"{run.count(PASS)} passed, {len(run.failed)} failed, {run.count(SKIP)} skipped"
                + (f", {len(run.optional_failed)} optional failed" if run.optional_failed else "")),
               ("protocol versions checked", ", ".join(map(str, run.spoken)) or "none"),
               ("time", f"{run.seconds:.1f} s")]
    if run.adapter:
        figures.insert(0, ("wire format", f"the adapter {run.adapter}"))
    if run.passed:
        return Verdict(PASSED, f"PASS: every required check that ran passes: {checked_words(run)}",
                       [f"optional feature not supported or not conforming: {r.id} ({r.check.section}): {r.detail}"
                        for r in run.optional_failed], figures)
    n = len(run.failed)
    return Verdict(FAILED, f"FAIL: {n} required check{'s' * (n != 1)} of {len(run.results)} "
                           f"fail{'s' * (n == 1)}",
                   [f"{r.id} ({r.check.section}): {r.detail}" for r in run.failed]
                   + [f"checked: {checked_words(run)}"], figures)


def _provenance(run: ConformanceRun) -> Provenance:
    if run.submission:
        rules = file_input("rules submission", run.submission, run.submission_sha256(), "submission")
    else:
        rules = Input("rules", f"none: {run.rules_words()}")
    seed = _emulator_seed(run.controller)
    seeds = ("none drawn by the checks: each sends the same frames every run"
             + (f"; the emulated controller's seed {seed}" if seed is not None else ""))
    more = [("controller", esc(run.controller) + (f" (at {code(run.url)})" if run.url and run.url != run.controller
                                                  else "")),
            ("controller's HELLO", code(message_text(run.hello)) if run.hello else
             "none: the controller never answered a HELLO"),
            ("wire format", esc(f"the adapter {run.adapter}" if run.adapter else "the bench's own protocol")),
            ("layers checked", esc(checked_words(run))),
            ("game", esc(run.game)),
            ("timeouts", esc(run.timeouts_words()))]
    if run.line is not None:
        more.append(("line", esc(run.line.words())))
    return Provenance(
        date=f"{utc(run.started)} to {utc(run.finished)}", inputs=[rules], seeds=esc(seeds),
        engine=esc("bench conformance: one fresh connection and a time budget for each check; the faults "
                   "are the bench's own, on its side of the link"),
        repeat=run.command, more=more)


def _emulator_seed(spec: str) -> str | None:
    if not spec.startswith("emulated"):
        return None
    options = dict(o.partition("=")[::2] for o in spec.partition(":")[2].split(",") if "=" in o)
    return options.get("seed", "7")


def _status_cell(r: Result) -> str:
    word = {PASS: ("pass", "pass"), SKIP: ("info", "skip"),
            FAIL: ("caution", "FAIL (optional)") if r.check.optional else ("fail", "FAIL")}[r.status]
    return f'<td class="{word[0]}">{word[1]}</td>'


def _failures(run: ConformanceRun) -> str:
    failing = run.failed + run.optional_failed
    if not failing:
        return "<h2>Failures</h2><p class=pass>None.</p>"
    cards = []
    for r in failing:
        kind = "an optional feature: reported, not counted" if r.check.optional else "required"
        cards.append(
            f'<div class="card" id="fail-{esc(r.id)}"><p><b>{esc(r.id)}</b> ({esc(kind)}), '
            f"{esc(r.check.section)} of {esc(DOC)}: {esc(r.detail)}</p><p class=info>{esc(r.check.summary)}; "
            f"{r.seconds:.2f} s</p>"
            + (f"<details open><summary>wire log (&gt; bench to controller, &lt; controller to bench, # a note; "
               f"seconds from the check's start)</summary><pre>{esc(r.wire_log)}</pre></details>"
               if r.wire_log else "<p class=info>no wire log: the link did not open</p>")
            + "</div>")
    return "<h2>Failures</h2>" + "".join(cards)


def _by_section(run: ConformanceRun) -> str:
    sections: dict[str, list[Result]] = {}
    for r in run.results:
        sections.setdefault(r.check.section, []).append(r)
    out = [f"<h2>Every check, by section of {esc(DOC)}</h2>"]
    for section, results in sections.items():
        rows = "".join(
            f"<tr><td>{code(r.id)}</td>{_status_cell(r)}<td class=num>{r.seconds:.2f}</td>"
            f"<td>{esc(r.detail)}"
            + (f' <a href="#fail-{esc(r.id)}">wire log</a>' if r.status == FAIL and r.wire_log else "")
            + "</td></tr>" for r in results)
        out.append(f"<h3>{esc(section)}</h3><table><tr><th>check</th><th>verdict</th><th>time (s)</th>"
                   f"<th>what the controller did</th></tr>{rows}</table>")
    return "\n".join(out)


def render(run: ConformanceRun) -> str:
    return report_page(kind="conformance report", title=f"bench conformance: {run.controller} ({utc(run.started)})",
                       heading=f"Conformance: {run.game} controller"
                               + (f" through {run.adapter.split()[0]}" if run.adapter else ""), verdict=_verdict(run),
                       provenance=_provenance(run), sections=[_failures(run), _by_section(run)])


def write_report(run: ConformanceRun, path: str | Path) -> Path:
    """The page, written whole and then moved into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(render(run), encoding="utf-8")
    partial.replace(path)
    return path
