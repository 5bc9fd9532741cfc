"""pytest plugin: the regulation scenarios of ``features/`` played end to end
against a game controller over its link.

    pytest features/                                   # the emulated controller (default)
    pytest features/ --controller emulated:pay-on-no-roll
    pytest features/ --controller /dev/ttyUSB0 --controller-submission my-rules.yaml
    pytest features/ --controller socket://10.0.0.7:7001 --controller-game sic-bo --controller-paytable B

Loaded by the ``pytest11`` entry point in any project that installs
tablebench (``-p no:bench.pytest_plugin`` turns it off). A test module opts in with
``PLAYED_ON_CONTROLLER = True`` (``features/test_*.py``, or what ``bench
features DIR`` writes); its scenarios get the ``open_table`` fixture, which
opens a ``ControllerTable``, and are deselected, with the reason in the
terminal summary, when they cannot be played on the controller under test
(``bench.scenarios.controller_scope``). A ``conftest.py`` fixture named ``open_table``
overrides it (this repository's ``tests/features`` bind the rules engine).
docs/controller-testing.md is the user's guide.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml

from bench.scenarios.controller_scope import PLAN, REASONS, WIRE_LOGS, Plan, Target, plan, played_on_controller
from bench.scenarios.controller_table import ControllerConnection, ControllerTable, WireLog
from bench.scenarios.described_failures import DESCRIBED, FAILED_STEP, DescribedFailures
from bench.errors import BenchError
from bench.rules import describe, get_game
from bench.rules.submission import default_rules, load_submission
from tablebench_io.commandline import doc_ref

SUMMARY = pytest.StashKey[tuple]()
EMULATED = "emulated"
REPORT = "bench-controller-report"      # the run report's plugin object (bench.scenarios.run_report)


# The plugin's options whose value is a path: written with a space, pytest takes the value for a test path.
PATH_OPTIONS = ("--controller", "--controller-submission", "--controller-key", "--controller-log")
RESTARTED = "TABLEBENCH_PYTEST_ARGS_JOINED"


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser, args) -> None:
    """pytest looks for its configuration file from the paths on its command
    line before it knows a plugin's options: in ``--controller /dev/ttyUSB0``
    it takes the device for a test path, looks from ``/dev``, and the
    project's ``pytest.ini`` is not read (pytest issue #8846). The same run
    written ``--controller=/dev/ttyUSB0`` is read right; so, once, before any
    test is collected, the run is started again with the value joined to its
    option (POSIX, from the command line). Elsewhere one line says how to write it."""
    given = list(early_config.invocation_params.args)
    joined = _joined(given, early_config.invocation_params.dir)
    if joined is None or os.environ.get(RESTARTED):
        return
    if os.name != "posix" or sys.argv[1:] != given or not getattr(sys, "orig_argv", None):
        option = next(a for a, b in zip(given, joined) if a != b)
        raise pytest.UsageError(f"{option} PATH with a space makes pytest miss this project's configuration file "
                                f"(it takes PATH for a test path); write {option}=PATH")
    head = sys.orig_argv[:len(sys.orig_argv) - len(given)]
    capture = early_config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        capture.stop_global_capturing()      # the new run writes to the terminal, not to this one's capture files
    sys.stdout.flush()
    sys.stderr.flush()
    os.environ[RESTARTED] = "1"
    os.execv(sys.executable, [sys.executable, *head[1:], *joined])


def _joined(args: list[str], here) -> list[str] | None:
    """``args`` with each path option and its value outside the working
    directory written as one (``--controller=/dev/ttyUSB0``), or None if
    none needs it: a path under the working directory does not move pytest's
    search for its configuration."""
    out, changed, i = [], False, 0
    while i < len(args):
        arg = args[i]
        if arg in PATH_OPTIONS and i + 1 < len(args) and _outside(args[i + 1], Path(here)):
            out.append(f"{arg}={args[i + 1]}")
            changed, i = True, i + 2
            continue
        out.append(arg)
        i += 1
    return out if changed else None


def _outside(value: str, here: Path) -> bool:
    try:
        path = (here / value).resolve()
        return path.exists() and not path.is_relative_to(here.resolve())
    except (OSError, ValueError):
        return False


def pytest_configure(config: pytest.Config) -> None:
    # The conformance checks (bench.conformance.test_controller) are run with -m conformance in any project.
    config.addinivalue_line("markers", "conformance: a protocol conformance check of a controller "
                                       f"({doc_ref('protocol', 16)})")
    report = config.getoption("--controller-report", None)
    if report and not hasattr(config, "workerinput"):
        if (config.getoption("numprocesses", None) or 0) > 0:
            raise pytest.UsageError("--controller-report: the run's report is written by one process; run the "
                                    "scenarios without -n (or with -p no:xdist)")
        from bench.scenarios.run_report import RunReport
        config.pluginmanager.register(RunReport(config, report), REPORT)
    config.pluginmanager.register(DescribedFailures(), "tablebench-described-failures")
    _check_misbehaviour(config)


def _check_misbehaviour(config: pytest.Config) -> None:
    """An unknown ``--controller emulated:NAME`` is a usage error, said in
    one line before anything is collected: pytest's exit status 4, its own
    for a usage error (a pytest run keeps pytest's table, README "Exit
    statuses"; the bench's 4, interrupted, is not meant)."""
    url = config.getoption("--controller", None) or ""
    options = url.partition(":")[2] if url.startswith(EMULATED + ":") else ""
    # emulated:NAME, or options such as protocol=1,seed=7 (bench.conformance.suite.emulator_args): a bare word is a name
    names = [option for option in options.split(",") if option and "=" not in option]
    if names:
        from bench.emulator.misbehaviours import every_misbehaviour
        for name in names:
            if name not in every_misbehaviour():
                raise pytest.UsageError(f"--controller {url}: unknown misbehaviour {name!r} (usage error, pytest "
                                        "exit status 4); bench emulate --help lists the misbehaviours")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("controller", "regulation scenarios against a game controller (features/)")
    group.addoption("--controller", default=EMULATED, metavar="URL",
                    help="device path or pyserial URL of the controller (/dev/ttyUSB0, socket://HOST:PORT, "
                         "rfc2217://...); 'emulated' (default) starts bench emulate per game and rules; "
                         "'emulated:NAME' a misbehaving one (bench emulate --help lists the names)")
    group.addoption("--controller-adapter", metavar="NAME", default=None,
                    help="the controller's wire format: an adapter's name (bench adapters lists them); default: "
                         "the bench's own protocol. The emulated controllers speak it too")
    group.addoption("--controller-submission", metavar="FILE", default=None,
                    help="the rules submission the controller runs (game, paytable, readings); "
                         "its digest is checked against the controller's HELLO")
    group.addoption("--controller-game", metavar="GAME", default=None,
                    help="the controller's game when no submission is given (its default rules apply): "
                         "a game name or a game file (docs/rules.md); a variant plays its base game's scenarios")
    group.addoption("--controller-paytable", metavar="P", default=None,
                    help="the controller's paytable when no submission is given (Sic Bo A/B, Dice-Ology 1/2)")
    group.addoption("--controller-seed", type=int, default=7, metavar="N",
                    help="seed of the emulated controllers' Lucky Numbers (default 7)")
    group.addoption("--controller-key", metavar="FILE", default=None,
                    help="seal the run's journals with this bench key (bench.key of bench key new); "
                         "without it they are unsealed")
    group.addoption("--controller-log", default="reports/controller", metavar="DIR",
                    help="where each scenario's wire log is written (default reports/controller)")
    group.addoption("--controller-players", choices=("cover", "scenario"), default="cover",
                    help="cover (default): beside each scenario's wagers, every round the players cover the "
                         "layout and place the wagers a controller must refuse (bench.rules.cover, "
                         "bench.play.probe_wagers), all judged by the oracle; scenario: the scenario's wagers only")
    group.addoption("--controller-report", metavar="FILE.html", default=None,
                    help="write the run's report: one self-contained HTML page (the verdict, provenance, each "
                         "failed scenario with its clause, frame and wire log, every scenario by feature)")
    from bench.archive.labels import add_label_options
    add_label_options(group)      # --table, --dealer, --dice-set, --wheel-id: kept in each journal's header


def _readings(config: pytest.Config) -> dict:
    """The features' wording of each ambiguous clause -> rules options."""
    from bench.scenarios.rules_table import READINGS
    return READINGS


def target(config: pytest.Config) -> Target:
    url = config.getoption("--controller")
    if url == EMULATED or url.startswith(EMULATED + ":"):
        name = url.partition(":")[2] or None
        if name:
            from bench.emulator.misbehaviours import every_misbehaviour
            if name not in every_misbehaviour():
                raise pytest.UsageError(f"--controller {url}: unknown misbehaviour {name!r}; "
                                        f"known: {', '.join(sorted(every_misbehaviour()))}")
        return Target("emulated", url, misbehave=name)
    submission = config.getoption("--controller-submission")
    try:
        if submission:
            rules = load_submission(submission)
        else:
            game = config.getoption("--controller-game")
            if not game:
                raise pytest.UsageError(f"--controller {url}: say what it runs with --controller-submission FILE "
                                        f"or --controller-game GAME")
            from bench.rules import describe
            from bench.rules.variant import resolve_game
            game = resolve_game(game)
            paytable = config.getoption("--controller-paytable")
            if describe(game).base:          # a game file's variant has its own default paytable
                paytable = paytable or describe(game).default_paytable
            rules = default_rules(game, paytable)
    except BenchError as err:
        raise pytest.UsageError(f"--controller {url}: {err}") from None
    return Target("device", url, game=rules.game, rules=rules)


def adapter(config: pytest.Config):
    """The adapter of ``--controller-adapter`` (None given: the bench's own protocol)."""
    from bench.adapters.registry import get_adapter
    try:
        return get_adapter(config.getoption("--controller-adapter"))
    except BenchError as err:
        raise pytest.UsageError(f"--controller-adapter: {err}") from None


def check_key(config: pytest.Config) -> None:
    """A sealing key that cannot be used stops the run before any scenario."""
    key = config.getoption("--controller-key")
    if key is not None:
        from bench.journal.keys import load_state
        try:
            load_state(key)
        except BenchError as err:
            raise pytest.UsageError(f"--controller-key: {err}") from None


def _steps(item: pytest.Item) -> list[tuple[str, str]] | None:
    from pytest_bdd.scenario import scenario_wrapper_template_registry
    function = getattr(item, "function", None)     # (every test item played on a controller has one)
    template = scenario_wrapper_template_registry.get(function) if function is not None else None
    if template is None:
        return None
    example = item.callspec.params.get("_pytest_bdd_example", {}) if hasattr(item, "callspec") else {}
    return [(step.type, step.name) for step in template.render(example).steps]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    if not any(played_on_controller(item) for item in items):
        return
    tgt = target(config)
    adapter(config)
    check_key(config)
    readings = _readings(config)
    keep, deselected = [], []
    reasons: Counter[str | None] = Counter()      # the deselected, by their plan's reason
    for item in items:
        if not played_on_controller(item):
            keep.append(item)
            continue
        steps = _steps(item)
        tags = [mark.name for mark in item.iter_markers()]
        p = plan(steps, readings, tgt, tags) if steps is not None else Plan()
        item.stash[PLAN] = p
        if p.runnable:
            keep.append(item)
        else:
            deselected.append(item)
            reasons[p.reason] += 1
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = keep
    played = sum(1 for item in keep if played_on_controller(item))
    config.stash[SUMMARY] = (tgt, played, reasons)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    if SUMMARY not in config.stash:
        return
    tgt, played, reasons = config.stash[SUMMARY]
    tr = terminalreporter
    tr.write_sep("-", f"controller mode: {tgt.url}")
    tr.write_line(f"{played} scenario(s) selected to play on the controller; "
                  f"{sum(reasons.values())} deselected as not playable there:")
    for reason, count in reasons.most_common():
        tr.write_line(f"  {count:4d}  {REASONS[reason]}")
    tr.write_line(f"wire logs: {config.getoption('--controller-log')}/ (one file per scenario; "
                  f"journal-*.jsonl: the run's journal for bench replay); docs/controller-testing.md")
    key = config.getoption("--controller-key")
    tr.write_line(f"journals sealed by {key} (bench replay --pubkey)" if key else
                  "journals UNSEALED (no --controller-key): whoever holds them can rewrite them consistently")


class ControllerPool:
    """The controllers of one pytest run: one connection per (game, paytable,
    readings), started on first use and kept for the whole run."""

    def __init__(self, config: pytest.Config):
        self.target = target(config)
        self.adapter = adapter(config)
        self.seed = config.getoption("--controller-seed")
        self.log_dir = Path(config.rootpath, config.getoption("--controller-log"))
        # The emulated controllers' submissions stay with the journals that cite them (bench replay reads them).
        self.workdir = self.log_dir / "submissions"
        self.stack = ExitStack()
        self.connections: dict[tuple, ControllerConnection] = {}
        self.failed: dict[tuple, str] = {}
        self.key = config.getoption("--controller-key")
        from bench.archive.labels import labels_from
        try:
            self.labels = labels_from(config.option)   # the table it runs at, for each journal's header
        except BenchError as err:
            raise pytest.UsageError(str(err)) from None
        self.report = config.pluginmanager.get_plugin(REPORT)     # told of each journal, if a report is asked for

    def connect(self, game: str, rules, log: WireLog) -> ControllerConnection:
        key: tuple = (game, str(rules.paytable), tuple(sorted(dict(rules.options).items())))
        if self.target.mode == "device":
            key = ("device",)
        if key in self.failed:
            raise BenchError(f"the controller for {key[0]} could not be reached earlier in this run: {self.failed[key]}")
        conn = self.connections.get(key)
        if conn is None:
            try:
                conn = self.connections[key] = self._open(game, rules, log)
            except BenchError as err:       # link errors too: every scenario of it fails at once
                self.failed[key] = str(err)
                raise
        if self.target.mode == "device" and game != describe(conn.game).built_in:
            raise AssertionError(f"the controller at {conn.url} runs {conn.game}, not {game}")
        conn.log = log
        return conn

    def _journal(self, name: str) -> Path:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        path = self.log_dir / f"journal-{name}.jsonl"
        if path.exists():
            path.unlink()          # a new run, a new journal (as bench run does)
        if self.report is not None:
            self.report.journals.append(path)
        return path

    def _open(self, game: str, rules, log: WireLog) -> ControllerConnection:
        target = self.target
        if target.mode == "device":
            assert target.url is not None and target.game is not None and target.rules is not None, \
                "a device's target names its URL, game and rules (target())"
            conn = ControllerConnection(target.url, target.game, target.rules,
                                        journal=self._journal(target.game), key=self.key, adapter=self.adapter,
                                        labels=self.labels)
        else:
            conn = self._emulated(game, rules)
        self.stack.callback(conn.close)
        conn.log = log
        conn.handshake()
        return conn

    def _emulated(self, game: str, rules) -> ControllerConnection:
        from bench.emulator.process import emulated_controller
        from bench.emulator.misbehaviours import MISBEHAVIOURS
        submission = self._submission(game, rules)
        misbehave = self.target.misbehave
        if misbehave and game not in MISBEHAVIOURS[misbehave].games:
            misbehave = None
        self.log_dir.mkdir(parents=True, exist_ok=True)
        from bench.adapters.registry import adapter_args
        speaks = adapter_args(self.adapter)
        url = self.stack.enter_context(emulated_controller(
            game, seed=self.seed, submission=str(submission), misbehave=misbehave, extra=speaks,
            stderr_path=str(self.log_dir / f"emulator-{submission.stem}.log")))
        command = (f"bench emulate --game {game} --submission {submission} --seed {self.seed}"
                   + (f" --misbehave {misbehave}" if misbehave else "") + "".join(f" {a}" for a in speaks))
        return ControllerConnection(url, game, load_submission(submission), description=f"{url} ({command})",
                                    journal=self._journal(submission.stem), emulated=True, misbehave=misbehave,
                                    key=self.key, adapter=self.adapter, labels=self.labels)

    def _submission(self, game: str, rules) -> Path:
        """A rules submission for the emulated controller: the scenario's
        paytable and readings, the game's default Lucky Number distribution
        (less any position the readings take off the layout)."""
        spec = get_game(game)
        raw: dict = {"game": game, "options": dict(rules.options)}
        if rules.paytable is not None:
            raw["paytable"] = str(rules.paytable)
        if spec.lucky_count_range:
            lucky = dict(spec.DEFAULT_LUCKY)
            positions = lucky.get("positions")
            if isinstance(positions, list):
                offered = set(spec.bet_names(rules))
                lucky["positions"] = [p for p in positions if p in offered]
                if isinstance(lucky.get("odds"), dict):
                    lucky["odds"] = {b: o for b, o in lucky["odds"].items() if b == "all" or b in offered}
            raw["lucky"] = lucky
        text = yaml.safe_dump(raw, sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:8]
        self.workdir.mkdir(parents=True, exist_ok=True)
        path = self.workdir / f"{game}-{digest}.yaml"
        path.write_text(f"# written by bench.scenarios.plugin for the emulated controller\n{text}", encoding="utf-8")
        return path

    def close(self) -> None:
        self.stack.close()


@pytest.fixture(scope="session")
def controller_pool(request: pytest.FixtureRequest):
    pool = ControllerPool(request.config)
    yield pool
    pool.close()


def _log_name(nodeid: str, index: int) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid.split("::", 1)[-1]).strip("_")
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:8]
    return f"{name[:100]}-{digest}" + (f"-{index}" if index else "") + ".log"


@pytest.fixture
def controller_tables(request: pytest.FixtureRequest, controller_pool: ControllerPool):
    """``open(game, paytable=None, rules=None)`` -> a ControllerTable for this
    scenario; at the end each table finishes its round and the oracle's
    verdict on it fails the scenario (in teardown) if it names a clause."""
    p = request.node.stash.get(PLAN, Plan())
    readings = _readings(request.config)
    module = Path(str(request.node.path)).stem
    tables: list[ControllerTable] = []
    logs = request.node.stash.setdefault(WIRE_LOGS, [])

    def open_table(game: str, paytable: str | None = None, rules=None) -> ControllerTable:
        path = controller_pool.log_dir / module / _log_name(request.node.nodeid, len(tables))
        log = WireLog(path, f"{request.node.nodeid} on {controller_pool.target.url}")
        logs.append(path)
        table = ControllerTable(game, paytable, rules, connect=lambda g, r: controller_pool.connect(g, r, log),
                                log=log, readings=readings, plain_bets=p.plain_bets,
                                cover=request.config.getoption("--controller-players") == "cover")
        tables.append(table)
        return table

    yield open_table
    failure = None
    for table in tables:
        try:
            table.finish()
        except AssertionError as err:
            failure = failure or err
        finally:
            table.journal_scenario(request.node.nodeid)
    if failure is not None:
        raise failure


@pytest.fixture
def open_table(controller_tables):
    """The table every step goes through (``bench.scenarios.steps``): here a game
    controller's. A ``conftest.py`` may override it with another table that
    has the same methods (``bench.scenarios.rules_table.RulesTable``)."""
    return controller_tables


def pytest_bdd_step_error(request, feature, scenario, step, step_func, step_func_args, exception) -> None:
    request.node.stash[FAILED_STEP] = f"{step.keyword} {step.name}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    outcome = yield
    report = outcome.get_result()
    logs = item.stash.get(WIRE_LOGS, None)
    if item.stash.get(DESCRIBED, False):
        del item.stash[DESCRIBED]
        return
    if logs and report.failed:
        tails = []
        for path in logs:
            try:
                lines = Path(path).read_text(encoding="utf-8").splitlines()[-25:]
            except OSError:
                lines = []
            tails.append(f"{path}\n" + "\n".join(lines))
        report.sections.append(("controller wire log", "\n\n".join(tails)))


def pytest_report_header(config: pytest.Config) -> str | None:
    if SUMMARY in config.stash or any(Path(str(a)).parts[:1] == ("features",) for a in config.args):
        return (f"controller: {config.getoption('--controller')} "
                f"(emulated seed {config.getoption('--controller-seed')}; wire logs in "
                f"{config.getoption('--controller-log')}/)")
    return None
