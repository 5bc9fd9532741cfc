"""``pytest features/ --controller URL``: the regulation scenarios played on a
controller pass against the compliant emulator and fail, naming the broken
clause, against every named misbehaviour of ``bench emulate``.

Each case runs pytest in a subprocess, as a QA engineer would, and reads its
JUnit XML: each failure as the plugin reports it (bench.scenarios.failure_report:
the clause, the round, the frame, the wire log's path).
"""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.rules import describe, game_names
from tests.docs import controller_figures
from tests.docs.checked_blocks import check, check_row

ROOT = Path(__file__).resolve().parents[2]
VERDICT = re.compile(r"\[([^\]\s{}]+)\] round \d+")
WIRE_LOG = re.compile(r"wire log: (\S+\.log)")


def feature_modules(games) -> list[str]:
    return [f"features/test_{game.replace('-', '_')}_on_controller.py" for game in sorted(games)]


# Every misbehaviour is measured by bench run (tests/bench/test_mutation_score.py,
# docs/mutation.md); the pytest suite is played against a sample of them: a run
# of the features takes seconds per game (lucky-after-result: 3 s per scenario,
# each waiting for its LUCKY in vain).
# One breach of each kind, every game among them: a refusal (accept-late-wager),
# an order (clear-before-settle), an announcement (five-lucky-numbers), a rare
# Lucky payout (lucky-win-one-unit-short), a no roll, and one base paytable of
# each game; tests/bench/test_mutation_score.py plays every misbehaviour.
SUITE_SAMPLE = ("accept-late-wager", "clear-before-settle", "five-lucky-numbers", "little-ones-survive-seven",
                "one-of-a-kind-12-to-1", "pay-on-no-roll", "straight-up-35-to-1", "lucky-win-one-unit-short")


def run_features(tmp_path: Path, controller: str, modules: list[str],
                 *extra: str) -> tuple[subprocess.CompletedProcess, list]:
    junit = tmp_path / "junit.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *modules, "--controller", controller, "-q", "-p", "no:cacheprovider",
         f"--junitxml={junit}", f"--controller-log={tmp_path / 'wire'}", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert junit.exists(), f"no JUnit XML: {proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    return proc, cases


def replay(journal: Path) -> subprocess.CompletedProcess:
    head = journal.with_suffix(".head").read_text().strip()
    return subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(journal), "--head", head], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def problems(cases) -> list[str]:
    """The text of every failure and error (a teardown verdict is an error)."""
    return [(bad.get("message") or "") + "\n" + (bad.text or "")
            for case in cases for bad in [*case.findall("failure"), *case.findall("error")]]


def _bare(clause: str) -> str:
    """A clause as letters and digits: 625b.2(d)(5) and the tag 625b.2.d.5 alike."""
    return re.sub(r"[^0-9a-z]", "", clause.lower())


def test_the_compliant_emulator_passes_every_scenario_it_can_play(tmp_path):
    proc, cases = run_features(tmp_path, "emulated", ["features/"])
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert not problems(cases)
    played = {case.get("classname").split(".")[-1] for case in cases}
    assert played == ({Path(m).stem for m in feature_modules(g for g in game_names() if describe(g).base is None)}
                      | {"test_round_order_on_controller"}), played
    # The terminal summary says how many were deselected, and why.
    assert "deselected as not playable there" in proc.stdout
    assert "judges a Lucky Number announcement the scenario dictates" in proc.stdout
    # docs/controller-testing.md's counts are this run's (checked, not copied: tests/docs/checked_blocks.py).
    check(controller_figures.DOC, "scenarios-run", controller_figures.scenarios_block(proc.stdout, cases))
    # Each controller's frames are in a hash-chained journal that bench replay verifies and judges again.
    journals = sorted((tmp_path / "wire").glob("journal-*.jsonl"))
    assert {j.name.split("-")[1] for j in journals} >= {"lightning", "sic", "dice"}
    rounds = 0
    for journal in journals:
        replayed = replay(journal)
        assert replayed.returncode == 0, replayed.stdout
        rounds += int(re.search(r"oracle: (\d+) rounds re-verified, 0 violations", replayed.stdout).group(1))
    assert rounds > 100         # (a scenario may refuse its only wager: a journal with no round played)


@pytest.mark.parametrize("name", SUITE_SAMPLE)
def test_each_misbehaviour_fails_the_suite_naming_its_clause(tmp_path, name):
    misbehaviour = MISBEHAVIOURS[name]
    proc, cases = run_features(tmp_path, f"emulated:{name}", feature_modules(misbehaviour.games))
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stdout[-3000:]}"
    texts = problems(cases)
    assert texts, "no scenario failed"
    check_row(controller_figures.DOC, "misbehaviour-table", controller_figures.misbehaviour_row(name, cases))
    # Each game's own clause (accept-late-wager: each game's "no more bets").
    wanted = {clause for game in misbehaviour.games for clause in misbehaviour.expected_clauses(game)}
    named = {clause for text in texts for clause in VERDICT.findall(text)}
    for clause in wanted:
        assert any(c.startswith(clause) for c in named), f"no failure names {clause}; named: {named}"
    # The oracle blames nothing else, and every verdict points to its wire log.
    assert all(any(c.startswith(w) for w in wanted) for c in named), f"other clauses named: {named - wanted}"
    # Every failure names the clause (a verdict's, or the scenario's tag beside a step's own assertion), and
    # none is the bench losing track of the controller's round after a violation (a "wrong-round" refusal).
    for text in texts:
        said = VERDICT.findall(text) + [tag for line in text.splitlines() if line.startswith("scenario's clauses:")
                                        for tag in line.split(":", 1)[1].replace(",", " ").split()]
        assert any(_bare(c).startswith(_bare(w)) for c in said for w in wanted), text[:1500]
        assert "wrong-round" not in text and "Traceback" not in text, text[:1500]
    logs = {log for text in texts for log in WIRE_LOG.findall(text)}
    assert logs and all(Path(log).is_file() for log in logs)
    # bench replay of the run's journal finds the same breach.
    replayed = [replay(journal) for journal in sorted((tmp_path / "wire").glob("journal-*.jsonl"))]
    assert any(r.returncode == 1 and any(clause in r.stdout for clause in wanted) for r in replayed), \
        [r.stdout[-1500:] for r in replayed]


def test_a_controllers_failure_is_told_as_its_own_and_tb_long_still_shows_the_benchs_traceback(tmp_path):
    """The report of a controller's breach is made before pytest's (whose
    traceback formatting was half a failing run's time): it says the clause,
    the frame and the wire log; ``--tb=long`` gives pytest's report, the
    bench's traceback and the wire log's tail beside it."""
    chosen = ["features/test_lightning_dice_on_controller.py", "-k", "only and two and dice"]
    told, told_cases = run_features(tmp_path / "auto", "emulated:clear-before-settle", chosen)
    long, long_cases = run_features(tmp_path / "long", "emulated:clear-before-settle", chosen, "--tb=long")
    assert told.returncode == long.returncode == 1
    [text] = problems(told_cases)
    assert "[625b.2(d)(6)] round" in text and "wire log: " in text and "bench/scenarios/" not in text, text
    [traced] = problems(long_cases)
    assert "bench/scenarios/plugin.py" in traced and "ControllerViolation" in traced, traced[:1500]
    assert "controller wire log" in long.stdout


def test_between_scenarios_the_controller_is_not_left_unacknowledged(tmp_path):
    """Protocol 2 sends its ACK at the session's next read; between scenarios
    the link can sit idle for longer than the controller waits for it (2 s),
    so the scenario's end sends it (and the run's journal replays)."""
    import time
    from bench.emulator.process import emulated_controller
    from bench.scenarios.controller_table import ControllerConnection
    from bench.rules.submission import default_rules
    log = tmp_path / "emulator.log"
    with emulated_controller("lightning-dice", seed=3, stderr_path=str(log)) as url:
        conn = ControllerConnection(url, "lightning-dice", default_rules("lightning-dice"),
                                    journal=tmp_path / "journal.jsonl")
        try:
            conn.handshake()
            conn.send("WAGER", round=conn.betting_round(), id="b1", bet="low", stake=100)
            assert conn.reply_to("b1").type == "ACCEPT"
            conn.end_scenario("test_one", conn.open_round)
            time.sleep(2.3)                       # pytest busy elsewhere
        finally:
            conn.close()
    assert "not acknowledged" not in log.read_text()
    assert conn.session.version == 2
    assert replay(tmp_path / "journal.jsonl").returncode == 0
