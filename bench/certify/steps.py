"""What each step of a certification runs.

Every step is the bench's or the twin's own command, run as a process of its
own (``python -m bench.cli ...``, so that the twin keeps its pinned libm and
the same seed gives the same bytes, docs/reproducibility.md): the dossier
holds exactly the files a lab would get by typing them, and the command line
that repeats each. A step's ``judge`` reads the files its commands wrote and
says, clause by clause, what was exercised, how much, and the verdict, with
the page and the journal lines that show it: the judges are modules of their
own (``bench.certify.judge_controller``, ``judge_design``, ``judge_rng``),
as are the records a step is made of and comes to
(``bench.certify.step_records``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.certify.judge_controller import _judge_conformance, _judge_scenarios, _judge_session, _judge_submission
from bench.certify.judge_design import _judge_edge, _judge_recognize, _judge_validate
from bench.certify.judge_rng import _judge_rng
from bench.certify.plan import Plan
from bench.certify.step_records import CONTENTS_OF, Step, _design_label
from bench.rules import describe

BENCH = [sys.executable, "-m", "bench.cli"]
TWIN = [sys.executable, "-m", "twin.cli"]
PYTEST = [sys.executable, "-m", "pytest"]


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
             *_link_options(plan), *[f"--protocol={v}" for v in plan.protocols],
             "--junit", "junit.xml", "--report", "report.html", "--json"],
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
