"""A pytest run's report: ``pytest --controller URL --controller-report FILE.html``
writes one self-contained page for the run, in the shared report frame
(``tablebench_io.report_page``): the verdict, the provenance (date, software,
the controller and its HELLO, each rules submission and journal with its
digest, seeds, the command), then each failed scenario with its clause, the
frame the oracle faulted and the wire log around it; then every scenario by
feature with its clause tags and verdict; the scenarios deselected and why;
the run's journals, to judge again with ``bench replay``.

Registered by ``bench.scenarios.plugin`` when the option is given; it only
listens (collection, each test's reports, the end of the session) and writes
the page once the controllers are closed and their journals complete.
"""

from __future__ import annotations

import re
import shlex
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bench.report.findings import shape_of
from bench.scenarios.clause_tags import SECTION_TAG, clause_of_tag, scenario_name
from bench.scenarios.controller_scope import PLAN, REASONS, WIRE_LOGS, played_on_controller
from bench.report.message_text import message_text
from tablebench_io.report_page import (CAUTION, FAIL, PASS, Input, Provenance, Verdict, code, esc, file_input,
                                       report_page, utc, version_of)

if TYPE_CHECKING:
    from bench.report.session_facts import SessionFacts

EXCERPT = 6                 # wire log lines shown either side of the frame a violation names
FAILURES_IN_VERDICT = 3    # named in the verdict box; every one has its card below
# A line of a scenario's wire log (bench.scenarios.controller_table.WireLog).
VIOLATION = re.compile(r"^VIOLATION \[(?P<clause>[^\]]+)\] round (?P<round>\S+): (?P<message>.*)$")
FRAME_LINE = re.compile(r"^(?P<mono>\d+\.\d+) (?P<dir>tx|rx) (?P<kind>\S+)\s+(?P<raw>\$\S{4} .*?)(?:  \((?P<note>.*)\))?$")
RAW = re.compile(r"^\$(?P<seq>\S{4}) (?P<message>.*)\*(?P<crc>[0-9A-Fa-f]{4})$")


@dataclass
class Scenario:
    nodeid: str
    feature: str                 # the feature's title
    feature_file: str
    name: str                    # the scenario in the feature's words
    clauses: list[str]
    outcome: str = "not run"     # passed, failed, error, skipped, deselected, not run
    seconds: float = 0.0
    reason: str = ""             # why it was deselected or skipped
    message: str = ""            # what failed, in pytest's words (shortened)
    wire_logs: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.outcome in ("failed", "error")


@dataclass
class Faulted:
    """What a failed scenario's wire log shows: the oracle's violations, the
    frame the first one names and the lines around it."""
    violations: list[tuple[str, str, str]]      # (clause, round, message)
    frame: dict | None                          # the frame line's parts
    excerpt: list[str]
    log: str


def read_wire_log(path: str) -> Faulted:
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return Faulted([], None, [], path)
    violations, first = [], None
    for k, text in enumerate(lines):
        m = VIOLATION.match(text)
        if m:
            violations.append((m["clause"], m["round"], m["message"]))
            first = k if first is None else first
    at = first if first is not None else len(lines)
    frame: dict | None = None
    for k in range(at - 1, -1, -1):                 # the frame just before the first verdict (or the last one)
        m = FRAME_LINE.match(lines[k])
        if m and m["kind"] != "ack" and not m["raw"].split(" ", 2)[1:2] == ["ACK"]:
            frame = dict(m.groupdict(), line=k)
            raw = RAW.match(m["raw"].strip())
            if raw:
                frame.update(seq=raw["seq"], message=raw["message"], crc=raw["crc"])
            break
    centre = frame["line"] if frame else at
    excerpt = lines[max(0, centre - EXCERPT):min(len(lines), centre + EXCERPT + 1 + len(violations[:3]))]
    return Faulted(violations, frame, excerpt, path)


class RunReport:
    """The plugin object that gathers a run and writes its page."""

    def __init__(self, config: pytest.Config, path: str):
        self.config = config
        self.path = Path(path)
        self.started = time.time()
        self.scenarios: dict[str, Scenario] = {}
        self.journals: list[Path] = []      # the controllers' journals, as ControllerPool opens them

    # -- gathering ----------------------------------------------------------------
    def _scenario(self, item: pytest.Item) -> Scenario:
        known = self.scenarios.get(item.nodeid)
        if known:
            return known
        feature, feature_file = _feature_of(item)
        clauses = sorted({clause_of_tag(m.name) for m in item.iter_markers() if SECTION_TAG.match(m.name)})
        found = self.scenarios[item.nodeid] = Scenario(item.nodeid, feature, feature_file,
                                                       scenario_name(item) or item.name, clauses)
        return found

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items) -> None:
        for item in items:
            if played_on_controller(item):
                self._scenario(item)

    def pytest_deselected(self, items) -> None:
        for item in items:
            if not played_on_controller(item):
                continue
            scenario = self._scenario(item)
            plan = item.stash.get(PLAN, None)
            scenario.outcome = "deselected"
            scenario.reason = (REASONS.get(plan.reason, plan.reason) + (f" ({plan.detail})" if plan.detail else "")
                               if plan is not None and plan.reason else "deselected (-k, -m or another plugin)")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        outcome = yield
        report = outcome.get_result()
        if item.nodeid not in self.scenarios:
            return
        scenario = self.scenarios[item.nodeid]
        scenario.wire_logs = [str(p) for p in item.stash.get(WIRE_LOGS, [])]
        scenario.seconds += report.duration
        if report.when == "setup" and scenario.outcome in ("not run", "deselected"):
            scenario.outcome = "running"
        if report.failed:
            if not scenario.failed:
                scenario.outcome = "failed" if report.when != "setup" else "error"
                scenario.message = _shortened(report.longreprtext)
        elif report.skipped and not scenario.failed:
            scenario.outcome = "skipped"
            scenario.reason = _skip_reason(report)
        elif report.when == "call" and report.passed and not scenario.failed:
            scenario.outcome = "passed"

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        # The controllers are closed by now (the session fixture's teardown): their journals are whole.
        for scenario in self.scenarios.values():
            if scenario.outcome == "running":        # set up and torn down without a call: not run
                scenario.outcome = "not run"
        try:
            written = write_report(self)
        except OSError as err:
            self.config.stash[_WRITTEN] = f"cannot write the report {self.path}: {err.strerror or err}"
            return
        self.config.stash[_WRITTEN] = f"controller report: {written}"

    def pytest_terminal_summary(self, terminalreporter) -> None:
        said = self.config.stash.get(_WRITTEN, None)
        if said:
            terminalreporter.write_line(said)

    # -- what the run comes to ----------------------------------------------------
    def played(self) -> list[Scenario]:
        return [s for s in self.scenarios.values() if s.outcome in ("passed", "failed", "error")]

    def failed(self) -> list[Scenario]:
        return [s for s in self.scenarios.values() if s.failed]

    def deselected(self) -> list[Scenario]:
        return [s for s in self.scenarios.values() if s.outcome == "deselected"]


_WRITTEN = pytest.StashKey[str]()


def _feature_of(item: pytest.Item) -> tuple[str, str]:
    try:
        from pytest_bdd.scenario import scenario_wrapper_template_registry
        obj = getattr(item, "obj", None)
        template = scenario_wrapper_template_registry.get(obj) if obj is not None else None
        if template is not None:
            feature = template.feature
            return feature.name, Path(feature.filename).name
    except (ImportError, AttributeError, TypeError):
        pass
    # Not a pytest-bdd scenario (or pytest-bdd not there): named by its file.
    return Path(str(item.path)).stem, Path(str(item.path)).name


def _shortened(text: str, lines: int = 14) -> str:
    """The end of pytest's failure text: where it says what failed."""
    kept = [line for line in text.splitlines() if line.strip()]
    errors = [line for line in kept if line.startswith("E ")]
    chosen = errors or kept[-lines:]
    return "\n".join(chosen[:lines])


def _last_words(message: str) -> str:
    """The last line of a failure, without pytest's "E" and the exception's module."""
    line = (message.splitlines() or ["failed"])[-1].removeprefix("E ").strip()
    return re.sub(r"^(?:[a-z_]+\.)+(?=[A-Z]\w*: )", "", line)


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr or "")


# -- the page -----------------------------------------------------------------------------
@dataclass
class _Journal:
    path: Path
    facts: SessionFacts | None      # None if unreadable
    problem: str = ""


def _journals(run: RunReport) -> list[_Journal]:
    from bench.report.session_facts import read_session
    found = []
    for path in run.journals:
        head_file = path.with_suffix(".head")
        try:
            head = head_file.read_text(encoding="utf-8").strip() if head_file.exists() else None
            found.append(_Journal(path, read_session(path, head)))
        except Exception as err:       # noqa: BLE001 (a journal that cannot be read is said, the page still written)
            found.append(_Journal(path, None, f"{type(err).__name__}: {err}"))
    return found


def _verdict(run: RunReport, journals: list[_Journal]) -> Verdict:
    played, failed, deselected = run.played(), run.failed(), run.deselected()
    passed = len(played) - len(failed)
    clauses = sorted({c for s in played for c in s.clauses})
    figures = [("scenarios played", f"{len(played)}: {passed} passed, {len(failed)} failed"),
               ("deselected", f"{len(deselected)} (not playable on this controller)"),
               ("clauses covered", str(len(clauses))),
               ("time", f"{sum(s.seconds for s in run.scenarios.values()):.1f} s")]
    reasons = []
    for s in failed[:FAILURES_IN_VERDICT]:
        faulted = [read_wire_log(p) for p in s.wire_logs]
        first = next((v for f in faulted for v in f.violations), None)
        said = f"[{first[0]}] {first[2]}" if first else _last_words(s.message)
        reasons.append(f"{s.name}: {said}")
    if len(failed) > FAILURES_IN_VERDICT:
        reasons.append(f"… and {len(failed) - FAILURES_IN_VERDICT} more failed scenarios, below")
    broken = [j for j in journals if j.facts is None or not j.facts.replayed.intact]
    for j in broken:
        reasons.append(f"the journal {j.path.name} does not replay as written: {j.problem or 'see below'}")
    if failed or broken:
        return Verdict(FAIL, f"FAIL: {len(failed)} of {len(played)} scenarios failed on the controller", reasons,
                       figures)
    if not played:
        return Verdict(CAUTION, "Nothing was played on the controller: every scenario was deselected or skipped",
                       reasons, figures)
    return Verdict(PASS, f"PASS: {len(played)} scenarios played on the controller, every one passed", reasons,
                   figures)


JOURNALS_LISTED = 3     # journals named one by one in the provenance; the rest counted (a run has one a controller)


def _in_logs(path: Path, logs: Path) -> str:
    """A journal by its name in the wire-log folder (named once, in its own row), not its absolute path."""
    try:
        return str(Path(path).resolve().relative_to(logs.resolve()))
    except ValueError:
        return str(path)


def shipped_names(args: list[str]) -> list[str]:
    """The command line with each shipped file (a submission or design read from
    the installed package) given by its name, as every option that takes one
    accepts it (``tablebench_fixtures.resolve``), not by its site-packages path."""
    import hashlib

    import tablebench_fixtures

    def named(value: str) -> str:
        path = Path(value)
        if not value.endswith((".yaml", ".yml")) or not path.is_file():
            return value
        shipped = tablebench_fixtures.identify(hashlib.sha256(path.read_bytes()).hexdigest(), "submission",
                                               "tower", "wheel", "game")
        return shipped[1] if shipped else value
    out = []
    for arg in args:
        option, equals, value = arg.partition("=")
        out.append(f"{option}={named(value)}" if equals and option.startswith("--") else named(arg))
    return out


def _provenance(run: RunReport, journals: list[_Journal]) -> Provenance:
    config = run.config
    inputs: list[Input] = []
    hellos, seen = [], set()
    logs = Path(config.getoption("--controller-log"))
    listed = 0
    for j in journals:
        if j.facts is None:
            inputs.append(Input("journal", _in_logs(j.path, logs), None, note=esc(f"(unreadable: {j.problem})")))
            continue
        h = j.facts.header
        if h.get("submission") and h.get("submission_sha256") not in seen:
            seen.add(h.get("submission_sha256"))
            inputs.append(file_input("rules submission", h["submission"], h.get("submission_sha256"), "submission"))
        if listed < JOURNALS_LISTED:
            inputs.append(Input("journal", _in_logs(j.path, logs), j.facts.replayed.chain.head, "head hash"))
        listed += 1
        if j.facts.hello:
            hellos.append(message_text(j.facts.hello))
    if listed > JOURNALS_LISTED:
        inputs.append(Input("journals", f"and {listed - JOURNALS_LISTED} more in the wire-log folder, each with "
                                        "its .head beside it"))
    if not inputs:
        inputs.append(Input("journal", "none: no controller was reached"))
    target = config.getoption("--controller")
    emulated = target == "emulated" or target.startswith("emulated:")
    seeds = (f"--controller-seed {config.getoption('--controller-seed')}: the emulated controllers' Lucky Numbers; "
             "each scenario gives its own readings" if emulated else
             "none of the bench's: each scenario gives its own readings; the controller draws its Lucky Numbers")
    args = shlex.join(["pytest", *shipped_names(list(config.invocation_params.args))])
    more = [("controller", esc(target) + (" (bench emulate, one per game and rules)" if emulated else "")),
            ("controller's HELLO", "<br>".join(code(h) for h in dict.fromkeys(hellos)) or "none recorded"),
            ("players", esc(config.getoption("--controller-players"))),
            ("wire logs", code(config.getoption("--controller-log"))),
            ("journals sealed", esc(f"by {config.getoption('--controller-key')} (bench replay --pubkey)"
                                    if config.getoption("--controller-key") else
                                    "no (no --controller-key): whoever holds them can rewrite them"))]
    engine = (f"pytest {pytest.__version__}, pytest-bdd {version_of('pytest-bdd')}: the regulation scenarios "
              "played on the link (bench.scenarios.plugin), every frame judged by the oracle as it passed")
    return Provenance(date=f"{utc(run.started)} to {utc(time.time())}", inputs=inputs, seeds=esc(seeds),
                      engine=esc(engine), repeat=args, more=more)


def _frame_html(frame: dict | None) -> str:
    if not frame:
        return ""
    who = "bench → controller" if frame["dir"] == "tx" else "controller → bench"
    decoded = (f"{code(frame['message'])}<br><span class=info>frame {esc(frame['seq'])}, CRC {esc(frame['crc'])}"
               f"</span>" if frame.get("message") else code(frame["raw"]))
    return (f"<table><tr><th>the frame</th><th>direction</th><th>message</th><th>bytes on the wire</th>"
            f"<th>time (s, the bench's clock)</th></tr><tr><td>{esc(frame['kind'])}</td><td>{esc(who)}</td>"
            f"<td>{decoded}</td><td>{code(frame['raw'])}</td><td class=num>{esc(frame['mono'])}</td></tr></table>")


def _failure_card(s: Scenario) -> str:
    parts = [f'<div class="card" id="{esc(_anchor(s))}"><p><b>{esc(s.name)}</b></p>'
             f"<p class=info>{esc(s.feature)} ({esc(s.feature_file)}); clauses "
             f"{esc(', '.join(s.clauses) or 'none tagged')}; {code(s.nodeid)}</p>"]
    faulted = [read_wire_log(p) for p in s.wire_logs]
    violations = [v for f in faulted for v in f.violations]
    if violations:
        # One line a finding (bench.report.findings): the first of its kind, and how many there are.
        shapes = Counter((clause, shape_of(message)) for clause, _, message in violations)
        firsts: dict[tuple[str, str], tuple[str, str]] = {}
        for clause, round_no, message in violations:
            firsts.setdefault((clause, shape_of(message)), (round_no, message))
        items = "".join(f"<li><b>[{esc(key[0])}]</b> round {esc(firsts[key][0])}: {esc(firsts[key][1])}"
                        + (f" <span class=count>({n} like it)</span>" if n > 1 else "") + "</li>"
                        for key, n in shapes.items())
        parts.append(f"<p>The oracle found {len(violations)} violation{'s' * (len(violations) != 1)}:</p>"
                     f"<ul>{items}</ul>")
    if s.message and not violations:
        parts.append(f"<p>What failed:</p><pre>{esc(s.message)}</pre>")
    for f in faulted:
        parts.append(_frame_html(f.frame))
        if f.excerpt:
            parts.append(f"<details open><summary>the wire log around it ({code(f.log)})</summary>"
                         f"<pre>{esc(chr(10).join(f.excerpt))}</pre></details>")
    return "".join(parts) + "</div>"


def _anchor(s: Scenario) -> str:
    return "s-" + re.sub(r"[^A-Za-z0-9_-]+", "-", s.nodeid)[:120]


def _failures(run: RunReport) -> str:
    failed = run.failed()
    if not failed:
        return "<h2>Failures</h2><p class=pass>None: every scenario played passed.</p>"
    return "<h2>Failures</h2>" + "".join(_failure_card(s) for s in failed)


_OUTCOME_CLASS = {"passed": "pass", "failed": "fail", "error": "fail", "skipped": "info", "not run": "info"}


def _by_feature(run: RunReport) -> str:
    features: dict[str, list[Scenario]] = {}
    for s in run.scenarios.values():
        if s.outcome != "deselected":
            features.setdefault(f"{s.feature} ({s.feature_file})", []).append(s)
    if not features:
        return ""
    out = ["<h2>Scenarios by feature</h2>"]
    for feature, scenarios in features.items():
        rows = "".join(
            f"<tr><td>{esc(s.name)}</td><td>{esc(', '.join(s.clauses))}</td>"
            f"<td class={_OUTCOME_CLASS.get(s.outcome, 'info')}>"
            + (f'<a href="#{esc(_anchor(s))}">{esc(s.outcome.upper())}</a>' if s.failed else esc(s.outcome))
            + (f"<br><span class=info>{esc(s.reason)}</span>" if s.reason else "")
            + f"</td><td class=num>{s.seconds:.2f}</td></tr>" for s in scenarios)
        passed = sum(1 for s in scenarios if s.outcome == "passed")
        out.append(f"<h3>{esc(feature)}: {passed} of {len(scenarios)} passed</h3><table><tr><th>scenario</th>"
                   f"<th>clauses</th><th>verdict</th><th>time (s)</th></tr>{rows}</table>")
    return "\n".join(out)


def _deselected(run: RunReport) -> str:
    away = run.deselected()
    if not away:
        return ""
    reasons = Counter(s.reason.split(" (")[0] for s in away)
    rows = "".join(f"<tr><td class=num>{n}</td><td>{esc(r)}</td></tr>" for r, n in reasons.most_common())
    listed = "".join(f"<li>{esc(s.name)} <span class=info>({esc(s.feature_file)}: {esc(s.reason)})</span></li>"
                     for s in away)
    return (f"<h2>Deselected: {len(away)} scenarios not playable on this controller</h2><table><tr><th>scenarios</th>"
            f"<th>why</th></tr>{rows}</table><details><summary>each of them</summary><ul>{listed}</ul></details>")


def _journal_table(journals: list[_Journal]) -> str:
    if not journals:
        return ""
    rows = []
    for j in journals:
        if j.facts is None:
            rows.append(f"<tr><td>{code(j.path)}</td><td colspan=3 class=fail>{esc(j.problem)}</td></tr>")
            continue
        r = j.facts.replayed
        command = f"bench replay {j.path} --head {r.chain.head}"
        rows.append(f"<tr><td>{code(j.path.name)}</td><td class=num>{len(r.oracle.rounds) if r.oracle else 0}</td>"
                    f"<td class='num {'fail' if r.oracle and r.oracle.violation_count else ''}'>"
                    f"{r.oracle.violation_count if r.oracle else '-'}</td><td>{code(command)}</td></tr>")
    return ("<h2>The run's journals</h2><p>Every frame of every scenario, hash-chained, one journal per "
            "controller connection; each replays on its own (its head hash is in the provenance above).</p>"
            "<table><tr><th>journal</th><th>rounds</th><th>violations</th><th>judge it again</th></tr>"
            + "".join(rows) + "</table>")


def render(run: RunReport) -> str:
    journals = _journals(run)
    target = run.config.getoption("--controller")
    return report_page(kind="pytest run report", title=f"pytest --controller {target} ({utc(run.started)})",
                       heading="Regulation scenarios on a controller", verdict=_verdict(run, journals),
                       provenance=_provenance(run, journals),
                       sections=[_failures(run), _by_feature(run), _deselected(run), _journal_table(journals)])


def write_report(run: RunReport) -> Path:
    run.path.parent.mkdir(parents=True, exist_ok=True)
    partial = run.path.with_name(run.path.name + ".partial")
    partial.write_text(render(run), encoding="utf-8")
    partial.replace(run.path)
    return run.path
