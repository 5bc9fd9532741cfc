"""The judges of the steps that exercise the controller and its filing:
the link's conformance (``bench conformance``), the rules submission
(``bench rtp``), the regulation scenarios played on the controller
(pytest's JUnit XML, the journals of the rounds that broke a clause), and
each covering session (``bench run``, then ``bench replay`` of its journal).
Each reads the files its commands wrote and says, clause by clause, what was
exercised, how much, and the verdict, with the page and the journal lines
that show it.

Apart from the steps' commands (``bench.certify.steps``): what a step runs
and how its output is judged are read and changed apart.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Callable

from bench.certify.command_output import _verdict_line, json_lines
from bench.certify.features import game_sections
from bench.certify.plan import Plan, section_of
from bench.certify.step_records import CAUTION, FAIL, PASS, Evidence, Outcome, _design_label, _rel
from bench.rules import describe

ORACLE_CITES = re.compile(r"\[(\d{3}[a-z]\.\d+(?:\([0-9a-z]+\))*|20:18:33:14(?:\([0-9a-z]+\))*|protocol)\]")
BROKEN_IN = re.compile(r"broken in round (\d+).*?--submission \S*?-([0-9a-f]{8})\.yaml")


def _judge_conformance(folder: Path, statuses: list[int], where: str) -> Outcome:
    lines = json_lines(folder / "checks.jsonl")
    checks = [d for d in lines if "check" in d and d.get("verdict") is not True]
    failed = [d for d in checks if d.get("status") == "fail" and not d.get("optional")]
    sections = sorted({str(d.get("section")) for d in checks})
    status = statuses[0]
    page = _rel(where, "report.html") if (folder / "report.html").exists() else None
    if status not in (0, 1) or not checks:
        return Outcome("error", f"the link could not be checked (bench conformance exit {status}); the later steps "
                       "need a working link and were not run", stop=True,
                       evidence=[Evidence("protocol", "bench conformance", "no check run", FAIL, page)])
    verdict = PASS if status == 0 else FAIL
    names = ", ".join(d.get("check", d.get("name", "?")) for d in failed[:5])
    summary = (f"{len(checks)} checks of docs/protocol.md, every required one passed" if verdict == PASS else
               f"{len(failed)} of {len(checks)} required checks failed ({names}); the later steps were not run")
    return Outcome(verdict, summary, [Evidence("protocol", "bench conformance: the link and session layers",
                                               f"{len(checks)} checks ({len(sections)} sections)", verdict, page,
                                               note=names)],
                   pages=[page] if page else [], stop=verdict != PASS)


def _judge_submission(plan: Plan) -> Callable[[Path, list[int], str], Outcome]:
    from bench.certify.features import shipped_scenarios

    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        lines = json_lines(folder / "rtp.jsonl")
        status = statuses[0]
        if status != 0:
            return Outcome(FAIL if status == 1 else "error", f"bench rtp refused the submission (exit {status})")
        bets = [b for d in lines for b in d.get("bets", ()) if isinstance(b, dict)]
        clauses = sorted({c for b in bets if b.get("clause") for c in split_citation(str(b["clause"]))})
        # The scenarios that judge a filing (bench.scenarios.controller_scope: submission, exact figures)
        # are what bench rtp does for this submission: it loads it through the same checks.
        filed = {c for s in shipped_scenarios() if s.game in (plan.game, None)
                 and s.off_controller in ("submission", "exact-figures") for c in s.clauses}
        evidence = [Evidence(c, "bench rtp: the submission accepted within the clause's limits, its exact return "
                             "computed", f"{len(bets)} bets", PASS) for c in sorted(set(clauses) | set(filed))
                    if _of_game(c, plan.game)]
        return Outcome(PASS, f"the submission is accepted; exact return of {len(bets)} bets", evidence)
    return judge


def split_citation(citation: str) -> list[str]:
    """``625b.2(f), (g)(3)`` -> ``625b.2(f)``, ``625b.2(g)(3)``: one clause a row."""
    parts = [p.strip() for p in re.split(r"[;,]", citation) if p.strip()]
    section = section_of(parts[0]) if parts else None
    return [p if section_of(p) or not section else section + p for p in parts]


def _of_game(clause: str, game: str) -> bool:
    return section_of(clause) in game_sections(game)


def _junit_cases(path: Path) -> list[ET.Element]:
    try:
        return list(ET.parse(path).getroot().iter("testcase"))
    except (OSError, ET.ParseError):
        return []


def _judge_scenarios(plan: Plan) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        status = statuses[-1]
        cases = _junit_cases(folder / "junit.xml")
        if status not in (0, 1) or not cases:
            return Outcome("error", f"the scenarios could not be played (pytest exit {status}; see pytest.txt)")
        page = _rel(where, "report.html")
        played: dict[str, int] = {}
        broken: dict[str, list[tuple[str, str | None, int | None]]] = {}
        for case in cases:
            clauses = [p.get("value", "") for p in case.iter("property") if p.get("name") == "clause"]
            for clause in clauses:
                played[clause] = played.get(clause, 0) + 1
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            if failure is None:
                continue
            text = (failure.get("message") or "") + "\n" + (failure.text or "")
            cited = list(dict.fromkeys(ORACLE_CITES.findall(text))) or clauses    # the oracle's, else the tags'
            found = BROKEN_IN.search(text)
            journal = round_no = None
            if found:
                round_no = int(found.group(1))
                named = sorted((folder / "wire").glob(f"journal-*-{found.group(2)}.jsonl"))
                journal = _rel(where, f"wire/{named[0].name}") if named else None
            for clause in cited:
                broken.setdefault(clause, []).append((case.get("name", "?"), journal, round_no))
        evidence = []
        own = game_sections(plan.game)       # an emulated controller of another game plays a shared feature's others
        for clause in sorted(c for c in set(played) | set(broken) if section_of(c) in own):
            fails = broken.get(clause, [])
            lines: list[int] = []
            journal = next((j for _, j, _ in fails if j), None)
            if journal:
                lines = _round_lines(folder / "wire" / Path(journal).name,
                                     {r for _, j, r in fails if j == journal and r is not None})
            evidence.append(Evidence(
                clause, "the regulation scenarios tagged with it, played on the controller",
                f"{played.get(clause, 0)} scenario(s)", FAIL if fails else PASS, page, journal, lines,
                note="; ".join(name for name, _, _ in fails[:3])))
        failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
        journals = sorted(_rel(where, f"wire/{p.name}") for p in (folder / "wire").glob("journal-*.jsonl"))
        return Outcome(FAIL if failed else PASS, f"{len(cases)} scenarios played, {failed} failed",
                       evidence, pages=[page], journals=journals, seeds={"controller_seed": plan.scenario_seed})
    return judge


def _round_lines(journal: Path, rounds: set[int]) -> list[int]:
    """The line numbers of ``rounds``' records in a journal."""
    found = []
    try:
        with open(journal, encoding="utf-8", errors="replace") as lines:
            for number, line in enumerate(lines, 1):
                match = re.search(r'"round": (\d+)', line[:4096])
                if match and int(match.group(1)) in rounds and '"kind": "round"' in line[:4096]:
                    found.append(number)
    except OSError:
        pass
    return found[:20]


def _clause_lines(journal: Path) -> tuple[dict[str, list[int]], list[int]]:
    """Per clause the lines of the rounds whose verdicts cite it; and every round's line."""
    cited: dict[str, list[int]] = {}
    rounds: list[int] = []
    try:
        with open(journal, encoding="utf-8", errors="replace") as lines:
            for number, line in enumerate(lines, 1):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict) or record.get("kind") != "round":
                    continue
                rounds.append(number)
                for verdict in record.get("verdicts") or ():
                    if isinstance(verdict, dict) and verdict.get("clause"):
                        cited.setdefault(str(verdict["clause"]), []).append(number)
    except OSError:
        pass
    return cited, rounds


def _judge_session(plan: Plan, seed: int, design: str) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        run_status, replay_status = statuses[0], statuses[-1]
        session = folder / "session"
        try:
            summary = json.loads((session / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Outcome("error", f"bench run wrote no summary (exit {run_status}; see stderr.txt)")
        if run_status not in (0, 1):
            return Outcome("error", f"bench run ended {summary.get('ending')} (exit {run_status}): "
                           f"{summary.get('reason') or 'see stderr.txt'}")
        replay = _verdict_line(json_lines(folder / "replay.jsonl"))
        replayed = replay_status in (0, 1) and bool(replay)
        game = describe(plan.game)
        rounds = int(summary.get("rounds") or 0)
        violations = {str(k): v for k, v in (summary.get("violations_by_clause") or {}).items()}
        judged = [*game.phase_clauses.values(), *game.amount_clauses]
        if game.lucky_win_clause:
            judged.append(game.lucky_win_clause)
        page, journal = _rel(where, "session/report.html"), _rel(where, "session/session.jsonl")
        cited, round_lines = _clause_lines(session / "session.jsonl")
        span = [round_lines[0], round_lines[-1]] if round_lines else []
        what = (f"bench run seed {seed} on {_design_label(design)}: the oracle judged every frame of every round"
                + ("; bench replay judged the journal again" if replayed else ""))
        evidence = []
        for clause in dict.fromkeys(judged + list(violations)):
            count = violations.get(clause)
            evidence.append(Evidence(clause, what, f"{rounds} rounds", FAIL if count else PASS, page, journal,
                                     cited.get(clause, [])[:20] if count else span,
                                     note=f"{count} violation(s)" if count else ""))
        draw = summary.get("lucky_draw") or {}
        tests: dict[str, list[dict[str, Any]]] = {}
        for test in draw.get("tests") or ():
            if test.get("clause"):
                tests.setdefault(str(test["clause"]), []).append(test)
        for clause, among in tests.items():
            # The draw's verdict is the session's, Holm-corrected over every test (bench.oracle.lucky_draw):
            # a failed draw fails the clauses of the tests that came out below the level.
            state = {"pass": PASS, "fail": FAIL}.get(str(draw.get("verdict")), CAUTION)
            if state == FAIL and all(float(t.get("p_adjusted", 1.0)) >= 1 - float(draw.get("confidence", 0.99))
                                     for t in among):
                state = PASS
            parts = ", ".join(dict.fromkeys(str(t.get("part")) for t in among))
            evidence.append(Evidence(clause, f"the Lucky draw over session seed {seed} ({parts})",
                                     f"{draw.get('rounds', rounds)} rounds, {len(among)} test(s)", state, page,
                                     note="" if state == PASS else str(draw.get("line", ""))[:300]))
        passed = bool(summary.get("passed")) and run_status == 0
        agree = not replayed or bool(replay.get("passed")) == passed
        if not agree:
            evidence.append(Evidence("protocol", "bench replay of the journal disagrees with the live verdict",
                                     f"{rounds} rounds", FAIL, page, journal))
        seeds = {"session_seed": summary.get("seed"), "twin": summary.get("twin")}
        words = (f"{rounds} rounds, {sum(int(v) for v in violations.values())} violation(s)"
                 + (f" of {', '.join(sorted(violations))}" if violations else "")
                 + ("; replay agrees" if replayed and agree else "; replay disagrees" if replayed else ""))
        return Outcome(PASS if passed and agree else FAIL, words, evidence, pages=[page],
                       journals=[journal], seeds=seeds)
    return judge
