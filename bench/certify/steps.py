"""What each step of a certification runs and what it reads back.

Every step is the bench's or the twin's own command, run as a process of its
own (``python -m bench.cli ...``, so that the twin keeps its pinned libm and
the same seed gives the same bytes, docs/reproducibility.md): the dossier
holds exactly the files a lab would get by typing them, and the command line
that repeats each. A step's ``judge`` reads the files its commands wrote and
says, clause by clause, what was exercised, how much, and the verdict, with
the page and the journal lines that show it.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from bench.certify.features import game_sections
from bench.certify.plan import Plan, section_of
from bench.rules import describe

PASS, FAIL, CAUTION = "pass", "fail", "caution"
BENCH = [sys.executable, "-m", "bench.cli"]
TWIN = [sys.executable, "-m", "twin.cli"]
PYTEST = [sys.executable, "-m", "pytest"]
# An argument read from a file an earlier command of the step wrote (a journal's
# head, known only once its session is over): "$(cat FILE)" in the command shown.
CONTENTS_OF = "\0contents-of:"

# What each fairness check of twin validate speaks to: the tower's obstacles must
# tumble the dice (625b.2(c)(3)), the tower must determine the outcome "in a
# randomized fashion" (625b.2(c)), a die not flat is a no roll (625b.2(d)(5));
# a Lightning Roulette wheel is a single zero wheel whose pockets come up alike (617c.3(a)).
VALIDATE_CLAUSES: dict[str, str | tuple[str, ...]] = {
    "faces_die_": "625b.2(c)", "totals": "625b.2(c)", "independence_dice_": "625b.2(c)",
    "serial_correlation": "625b.2(c)", "loaded_face_dependence": "625b.2(c)(3)",
    "no_roll_rate": ("625b.2(d)(5)", "625b.2(c)(4)"),       # the dice come to rest flat in the tray, or a no roll
    "pocket_uniformity": "617c.3(a)", "sector_bias": "617c.3(a)", "leaving_angle_": "617c.3(a)",
    "invalid_spin_rate": "617c.3(a)",
}
# The tests 810a.5(c) lists, by the words bench rng names them with: a test too short to
# run is a caution on its clause, not a silence.
RNG_TESTS = {
    "chi-square": "810a.5(c)(1)", "equi-distribution": "810a.5(c)(2)", "gap": "810a.5(c)(3)",
    "overlaps": "810a.5(c)(4)", "poker": "810a.5(c)(5)", "coupon": "810a.5(c)(6)", "permutation": "810a.5(c)(7)",
    "kolmogorov": "810a.5(c)(8)", "adjacency": "810a.5(c)(9)", "order statistic": "810a.5(c)(10)",
    "runs": "810a.5(c)(11)", "interplay": "810a.5(c)(12)", "serial": "810a.5(c)(13)",
    "independence of the previous game": "810a.5(c)(13)", "subsequence": "810a.5(c)(14)", "poisson": "810a.5(c)(15)",
}
ORACLE_CITES = re.compile(r"\[(\d{3}[a-z]\.\d+(?:\([0-9a-z]+\))*|20:18:33:14(?:\([0-9a-z]+\))*|protocol)\]")
BROKEN_IN = re.compile(r"broken in round (\d+).*?--submission \S*?-([0-9a-f]{8})\.yaml")


@dataclass
class Evidence:
    """One clause as one step exercised it."""
    clause: str
    what: str                    # "bench run, session seed 1: the oracle judged every frame"
    amount: str                  # "30 rounds", "66 scenarios", "2,000 drops"
    verdict: str                 # PASS, FAIL or CAUTION
    page: str | None = None      # relative to the dossier
    journal: str | None = None
    lines: list[int] = field(default_factory=list)      # journal lines that show it (1-based)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "", [])}


@dataclass
class Outcome:
    """What a step's commands came to."""
    status: str                  # PASS, FAIL, CAUTION, or "error" (a command could not do its job)
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    journals: list[str] = field(default_factory=list)
    seeds: dict[str, Any] = field(default_factory=dict)
    stop: bool = False           # the steps after it are not run (a link that fails)


@dataclass
class Step:
    name: str                    # the folder under steps/, and the order
    title: str
    commands: list[tuple[list[str], str | None]]    # (argv, the file its stdout goes to); run in the step's folder
    judge: Callable[[Path, list[int], str], Outcome]   # (the step's folder, exit statuses, its path in the dossier)
    ok_statuses: tuple[int, ...] = (0, 1)            # exit statuses that are a verdict, not a failure to run

    def repeat(self) -> list[str]:
        return [" ".join(_shown(a) for a in argv) for argv, _ in self.commands]


def argument(arg: str, folder: Path) -> str:
    """``arg`` as the command gets it, a file's contents read in."""
    if arg.startswith(CONTENTS_OF):
        try:
            return (folder / arg[len(CONTENTS_OF):]).read_text(encoding="utf-8").strip()
        except OSError:
            return ""
    return arg


def _shown(arg: str) -> str:
    if arg.startswith(CONTENTS_OF):
        return f'"$(cat {arg[len(CONTENTS_OF):]})"'
    if arg == sys.executable:
        return "python"
    return arg if re.fullmatch(r"[\w@%+=:,./-]+", arg) else "'" + arg.replace("'", "'\\''") + "'"


def _rel(base: str, name: str) -> str:
    return f"{base}/{name}"


def _controller(plan: Plan, conformance: bool = False) -> str:
    """``--controller`` for conformance and pytest: a misbehaving emulated one by its name
    (bench conformance takes a link-level one as ``link=NAME``)."""
    if plan.controller.emulated and plan.controller.misbehave:
        from bench.emulator.link_misbehaviours import LINK_MISBEHAVIOURS
        link = conformance and plan.controller.misbehave in LINK_MISBEHAVIOURS
        return f"emulated:{'link=' if link else ''}{plan.controller.misbehave}"
    return plan.controller.url


def _link_options(plan: Plan, adapter_flag: str = "--adapter") -> list[str]:
    out = []
    if plan.controller.adapter:
        out += [adapter_flag, plan.controller.adapter]
    if plan.controller.baud and adapter_flag == "--adapter":
        out += ["--baud", str(plan.controller.baud)]
    return out


def _design_label(path: str) -> str:
    return Path(path).stem


def plan_steps(plan: Plan, rng_available: bool) -> list[Step]:
    """The steps of ``plan`` in order: the link first (a failure stops the rest),
    the rules submission, the regulation scenarios, the sessions, then the
    designs' campaigns (fairness, edge, recognition), the RNG battery last."""
    steps: list[Step] = []
    number = 0

    def add(name: str, *args, **kwargs) -> None:
        nonlocal number
        number += 1
        steps.append(Step(f"{number:02d}-{name}", *args, **kwargs))

    if plan.conformance:
        # The emulated controller of bench conformance runs its game's default rules (the link
        # layer is the same under any): a submission would only fail the HELLO's rules digest.
        rules = [] if plan.controller.emulated else ["--submission", plan.submission]
        add("conformance", "link conformance (bench conformance)", [(
            [*BENCH, "conformance", "--controller", _controller(plan, conformance=True), "--game", plan.game, *rules,
             *_link_options(plan), "--junit", "junit.xml", "--report", "report.html", "--json"],
            "checks.jsonl")], _judge_conformance, ok_statuses=(0, 1, 2, 3))
    add("submission", "the rules submission (bench rtp)", [(
        [*BENCH, "rtp", plan.submission, "--json"], "rtp.jsonl")], _judge_submission(plan))
    if plan.scenarios:
        cmd = [*PYTEST, "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--controller", _controller(plan),
               "--controller-submission", plan.submission, "--controller-seed", str(plan.scenario_seed),
               "--controller-log", "wire", "--junit-xml", "junit.xml", "--controller-report", "report.html"]
        if plan.controller.adapter:
            cmd += ["--controller-adapter", plan.controller.adapter]
        if plan.key:
            cmd += ["--controller-key", plan.key]
        add("scenarios", "the regulation scenarios on the controller (pytest features/ --controller)",
            [([*BENCH, "features", "scenarios"], "features.txt"), (cmd + scenario_modules(plan.game), "pytest.txt")],
            _judge_scenarios(plan))
    for design in plan.designs:
        for index in range(plan.sessions):
            seed = plan.first_seed + index
            cmd = [*BENCH, "run", "--game", plan.game, "--submission", plan.submission, "--design", design,
                   "--rounds", str(plan.rounds), "--seed", str(seed), "--out", "session", "--json",
                   *_link_options(plan)]
            if not plan.controller.emulated:
                cmd += ["--controller", plan.controller.url, "--realtime"]
            elif plan.controller.misbehave:
                cmd += ["--misbehave", plan.controller.misbehave]
            if plan.key:
                cmd += ["--key", plan.key]
            add(f"session-{_design_label(design)}-seed{seed}", f"a covering session, {plan.rounds} rounds, seed {seed} "
                f"({_design_label(design)}; bench run, then bench replay)",
                [(cmd, "summary.jsonl"), (_replay_command(plan), "replay.jsonl")],
                _judge_session(plan, seed, design))
    for design in plan.designs:
        label = _design_label(design)
        if plan.runs:
            add(f"validate-{label}", f"fairness campaign of {label}, {plan.runs} runs (twin validate)", [(
                [*TWIN, "validate", design, "--drops" if describe(plan.game).plant == "tower" else "--spins",
                 str(plan.runs), "--seed", str(plan.campaign_seed), "--confidence",
                 str(plan.profile.fairness_confidence), *_campaign_options(plan), "--results", "results.jsonl",
                 "--report", "report", "--json"], "validation.jsonl")], _judge_validate(plan, design))
        if plan.edge_runs:
            add(f"edge-{label}", f"the edge of a watching player on {label}, {plan.edge_runs} runs (twin edge)", [(
                [*TWIN, "edge", design, "--runs", str(plan.edge_runs), "--seed", str(plan.campaign_seed),
                 "--confidence", str(plan.profile.fairness_confidence), *_campaign_options(plan),
                 "--results", "results.jsonl", "--report", "report", "--json"], "edge.jsonl")],
                _judge_edge(plan, design))
        if plan.frames:
            add(f"recognize-{label}", f"the result as a camera sees it on {label}, {plan.frames} frames "
                "(twin frames, bench recognize)", [
                    ([*TWIN, "frames", design, "--count", str(plan.frames), "--seed", str(plan.campaign_seed),
                      "--out", "frames", "--json"], "frames.json"),
                    ([*BENCH, "recognize", "frames", "--recognizer", "reference", "--report", "report.html",
                      "--json"], "recognize.jsonl")], _judge_recognize(plan, design))
    sessions = [step.name for step in steps if step.name.split("-", 1)[1].startswith("session-")]
    # The controller's raw and scaled RNG output is collected in bulk over the link first (bench rng --collect,
    # docs/protocol.md "Raw RNG output"), then judged with the Lucky draws the sessions journalled. The
    # emulated controller stands in for the device: the same command, against a bench emulate started for
    # this step with the plan's seed and misbehaviour, over a real link (bench.certify.serve). The exchange
    # is the bench protocol's own: through an adapter's wire format there is none to ask.
    collect = plan.rng_collect if not plan.controller.adapter else 0
    if plan.rng and rng_available and (sessions or collect):
        commands: list[tuple[list[str], str | None]] = []
        files = [f"../{name}/session/session.jsonl" for name in sessions]
        if collect:
            commands.append((_against_controller(plan, [
                *BENCH, "rng", "--collect", str(collect), "--controller", plan.controller.url, "--game", plan.game,
                "--out", "collection", "--json"]), "collection.jsonl"))
            files.insert(0, "collection/collection.jsonl")
        commands.append(([*BENCH, "rng", *files, *rng_options(plan.profile.rng_confidence), "--json"], "rng.jsonl"))
        what = (f"{collect} values collected from the controller and " if collect else "") + \
            f"the Lucky draws of {len(sessions)} session(s)"
        add("rng", f"the RNG battery of § 810a.5 on {what} (bench rng)", commands, _judge_rng)
    return steps


def _against_controller(plan: Plan, argv: list[str]) -> list[str]:
    """``argv`` (naming ``--controller URL``) as it runs against the plan's controller: a device as it is;
    the emulated one started for the command (its seed the scenarios', its misbehaviour the plan's) and
    its address put in for ``--controller``."""
    if not plan.controller.emulated:
        return argv
    from bench.certify.serve import URL
    at = argv.index("--controller") + 1
    wrapper = [sys.executable, "-m", "bench.certify.serve", "--game", plan.game, "--seed", str(plan.scenario_seed),
               "--submission", plan.submission]
    if plan.controller.misbehave:
        wrapper += ["--misbehave", plan.controller.misbehave]
    return [*wrapper, "--", *argv[:at], URL, *argv[at + 1:]]


def rng_options(confidence: float) -> list[str]:
    """bench rng's profile at the jurisdiction's RNG level, and its page where the build writes one."""
    import importlib.util
    try:
        from bench.rng.outcome import PROFILES
    except ImportError:          # a build whose bench rng names its levels otherwise: its default
        PROFILES = {}
    chosen = next((name for name, p in PROFILES.items() if abs(p.confidence - confidence) < 1e-9), None)
    options = ["--profile", chosen] if chosen else []
    if importlib.util.find_spec("bench.rng.page") is not None:
        options += ["--report", "report.html"]
    return options


def scenario_modules(game: str) -> list[str]:
    """The test modules ``bench features`` writes whose feature has scenarios of ``game``:
    the emulated controllers would play every game's, and only this game's controller is certified."""
    from bench.certify.features import shipped_scenarios
    from bench.commands.features import ON_CONTROLLER, shipped_files
    features = {s.feature for s in shipped_scenarios() if s.game == game}
    return [f"scenarios/{name}" for name, _ in shipped_files()
            if name.endswith(ON_CONTROLLER) and name[len("test_"):-len(ON_CONTROLLER)] + ".feature" in features]


def _replay_command(plan: Plan) -> list[str]:
    """``bench replay`` of the session just played: the chain against the head
    kept apart, the seals against the key's public half, every frame judged again."""
    cmd = [*BENCH, "replay", "session/session.jsonl", "--head", CONTENTS_OF + "session/session.head", "--json"]
    if plan.key:
        cmd += ["--pubkey", str(Path(plan.key).with_name("bench.pub"))]
    return cmd


def _campaign_options(plan: Plan) -> list[str]:
    out = ["--workers", str(plan.workers), "--engine", plan.engine]
    if plan.engine == "ray" and plan.ray_address:
        out += ["--ray-address", plan.ray_address]
    return out


# --- reading back --------------------------------------------------------------------------------------------

def json_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a command's output, a line each (a line that is not one is left out)."""
    found = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _verdict_line(lines: list[dict[str, Any]]) -> dict[str, Any]:
    return next((d for d in reversed(lines) if d.get("record") == "verdict" or d.get("verdict") is True), {})


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


def design_clauses(key: str) -> tuple[str, ...]:
    """The clauses a check of twin validate speaks to (none: a description without a verdict)."""
    found = next((clauses for prefix, clauses in VALIDATE_CLAUSES.items() if key.startswith(prefix)), ())
    return (found,) if isinstance(found, str) else found


def _judge_validate(plan: Plan, design: str) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        lines = json_lines(folder / "validation.jsonl")
        verdict = _verdict_line(lines)
        if statuses[0] not in (0, 1) or not verdict:
            return Outcome("error", f"twin validate could not run the campaign (exit {statuses[0]}; see stderr.txt)")
        page = _rel(where, "report/index.html")
        by_clause: dict[str, list[dict[str, Any]]] = {}
        for check in lines:
            for clause in design_clauses(str(check.get("key"))) if check.get("record") == "check" else ():
                by_clause.setdefault(clause, []).append(check)
        runs = verdict.get("runs", plan.runs)
        evidence = []
        for clause, checks in by_clause.items():
            failed = [c for c in checks if c.get("passed") is False]
            judged = [c for c in checks if c.get("passed") is not None]
            state = FAIL if failed else PASS if judged else CAUTION
            evidence.append(Evidence(
                clause, f"twin validate of {_design_label(design)}: " + ", ".join(str(c.get("title")) for c in checks),
                f"{runs} runs, {len(checks)} check(s) at {plan.profile.fairness_confidence:g}", state, page,
                note="; ".join(str(c.get("finding")) for c in failed[:3])))
        passed = bool(verdict.get("passed"))
        return Outcome(PASS if passed else FAIL, f"{runs} runs; " + ("every check passed" if passed else
                       "failed: " + ", ".join(str(c.get("key")) for c in lines
                                              if c.get("record") == "check" and c.get("passed") is False)),
                       evidence, pages=[page], seeds={"first_seed": plan.campaign_seed, "twin": verdict.get("twin")})
    return judge


def _judge_edge(plan: Plan, design: str) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        verdict = _verdict_line(json_lines(folder / "edge.jsonl"))
        if statuses[0] not in (0, 1) or not verdict:
            return Outcome("error", f"twin edge could not run (exit {statuses[0]}; see stderr.txt)")
        page = _rel(where, "report/index.html")
        passed = bool(verdict.get("passed"))
        edge, low, high = verdict.get("edge"), verdict.get("low"), verdict.get("high")
        words = f"a watching player's edge {edge} ({low} to {high} at {verdict.get('confidence')})"
        clause = describe(plan.game).betting_clause      # how late "no more bets" may be called
        return Outcome(PASS if passed else FAIL, words, [Evidence(
            clause, f"twin edge of {_design_label(design)}: what watching the {describe(plan.game).plant} before "
            "no more bets is worth", f"{verdict.get('runs', plan.edge_runs)} runs", PASS if passed else FAIL, page,
            note=words)], pages=[page], seeds={"first_seed": plan.campaign_seed})
    return judge


def _judge_recognize(plan: Plan, design: str) -> Callable[[Path, list[int], str], Outcome]:
    def judge(folder: Path, statuses: list[int], where: str) -> Outcome:
        lines = json_lines(folder / "recognize.jsonl")
        verdict = _verdict_line(lines)
        if statuses[0] != 0 or statuses[-1] not in (0, 1) or not verdict:
            return Outcome("error", f"the frames or their recognition failed (exit {statuses}; see stderr.txt)")
        scores = next((d for d in lines if d.get("record") == "scores"), {})
        page = _rel(where, "report.html")
        passed = bool(verdict.get("passed"))
        accuracy = scores.get("face_accuracy", scores.get("pocket_accuracy"))
        clause = describe(plan.game).phase_clause("result")     # the outcome the reading reveals
        return Outcome(PASS if passed else FAIL, f"{scores.get('frames')} frames read, accuracy {accuracy}",
                       [Evidence(clause, f"bench recognize (reference recogniser) on frames of {_design_label(design)}",
                                 f"{scores.get('frames')} frames", PASS if passed else FAIL, page,
                                 note=f"accuracy {accuracy}")], pages=[page],
                       seeds={"first_seed": plan.campaign_seed})
    return judge


def row_state(states: set[str]) -> str:
    """A clause's state from its evidence, as the matrix reads a row (bench.certify.matrix.build)."""
    return FAIL if FAIL in states else PASS if PASS in states else CAUTION


def _rng_sources(lines: list[dict[str, Any]]) -> str:
    """What the battery read, in words: the collection over the link, the sessions' Lucky draws, or both."""
    sources = {str(t.get("source") or "") for t in lines if t.get("record") in ("test", "too-short")}
    sources |= {str(t.get("reason") or "").split(":", 1)[0] for t in lines if t.get("record") == "too-short"}
    collected = any(s.startswith(("raw(", "scaled(")) for s in sources)
    drawn = any(s.startswith("lucky") for s in sources)
    parts = (["the raw and scaled values collected over the link"] if collected else []) + \
        (["the sessions' Lucky draws"] if drawn or not collected else [])
    return " and ".join(parts)


def _judge_rng(folder: Path, statuses: list[int], where: str) -> Outcome:
    """The RNG family's tests, Holm-corrected by bench rng, a clause each; its too-short tests a caution.
    The physical family (the dice faces or pockets the sessions showed) is the design's, judged by the
    fairness campaign on unstaged drops: it is reported in the summary, not as a clause of § 810a.5."""
    lines = json_lines(folder / "rng.jsonl")
    verdict = _verdict_line(lines)
    if statuses[-1] not in (0, 1) or not verdict:
        return Outcome("error", f"bench rng could not collect or judge (exit {statuses}; see stderr.txt)")
    if statuses[0] == 1 and len(statuses) > 1 and (folder / "collection.jsonl").exists():
        said = _verdict_line(json_lines(folder / "collection.jsonl"))
        return Outcome(FAIL, f"the controller answered the raw RNG exchange wrongly: {said.get('error', '')}"[:300],
                       [Evidence("protocol", "bench rng --collect: the raw RNG exchange", "one exchange", FAIL)])
    page = _rel(where, "report.html") if (folder / "report.html").exists() else None
    by_clause: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        if line.get("record") == "test" and line.get("family") == "rng" and line.get("clause"):
            by_clause.setdefault(str(line["clause"]), []).append(line)
    short = [str(line.get("reason")) for line in lines if line.get("record") == "too-short" and line.get("family") == "rng"]
    read = _rng_sources(lines)
    evidence = []
    for clause, tests in by_clause.items():
        failed = [t for t in tests if t.get("family_passed") is False]
        evidence.append(Evidence(clause, f"bench rng on {_rng_sources(tests)}: " + ", ".join(
            dict.fromkeys(str(t.get("test")) for t in tests)), f"{max(int(t.get('n') or 0) for t in tests)} values",
            FAIL if failed else PASS, page, note="; ".join(str(t.get("detail", ""))[:120] for t in failed[:2])))
    for reason in short:
        words = reason.lower()
        named = next((c for name, c in RNG_TESTS.items() if re.search(rf"\b{re.escape(name)}", words)), None)
        if named:
            evidence.append(Evidence(named, f"bench rng on {_rng_sources([{'record': 'too-short', 'reason': reason}])}: "
                                     "not run", "too few values",
                                     CAUTION, page, note=reason[:200]))
    # 810a.5(a)(2) "fairly distributed ... over their range" is what the distribution tests ask;
    # (a)(3) "pass various recognized statistical tests" is the family as bench rng reads it (Holm).
    # (a)(1) "statistically independent": the runs, interplay and serial tests, where no test across
    # sessions (non-repeatability) speaks to it directly.
    # A clause of (c) is as the matrix reads its row: broken by a failed test, passed by a test that ran and
    # passed (a test too short for the sessions' few draws beside it is said, not a verdict), else a caution.
    held = {clause: row_state({e.verdict for e in evidence if e.clause == clause})
            for clause in dict.fromkeys(e.clause for e in evidence)}
    for clause, among in (("810a.5(a)(1)", ("810a.5(c)(11)", "810a.5(c)(12)", "810a.5(c)(13)")),
                          ("810a.5(a)(2)", ("810a.5(c)(1)", "810a.5(c)(2)", "810a.5(c)(8)")),
                          ("810a.5(a)(3)", tuple(RNG_TESTS.values()))):
        states = {held[c] for c in dict.fromkeys(among) if c in held}
        if clause in held or not states:
            continue
        evidence.append(Evidence(clause, f"bench rng's family of tests on {read}, Holm-corrected",
                                 f"{sum(c in held for c in dict.fromkeys(among))} clause(s) of 810a.5(c)",
                                 FAIL if FAIL in states else PASS if states == {PASS} else CAUTION, page))
        held[clause] = evidence[-1].verdict
    physical = [t for t in lines if t.get("record") == "test" and t.get("family") == "physical"]
    physical_failed = [str(t.get("test")) for t in physical if t.get("family_passed") is False]
    state = FAIL if FAIL in held.values() else CAUTION if CAUTION in held.values() or not held else PASS
    words = (f"{sum(len(t) for t in by_clause.values())} test(s) of the RNG family, "
             f"{sum(v == FAIL for v in held.values())} clause(s) failed; {len(short)} too short to run"
             + ("; every clause they speak to judged by a test that ran" if short and CAUTION not in held.values() else "")
             + (f"; the physical family (the design's, see the fairness campaign): {', '.join(physical_failed)} "
                "below the level" if physical_failed else ""))
    return Outcome(state, words, evidence, pages=[page] if page else [])
