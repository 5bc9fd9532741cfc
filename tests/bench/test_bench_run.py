"""bench run: rounds against the emulated controller behind a real link, every
frame judged and journalled; every named misbehaviour is caught by its clause."""

import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from typing import NamedTuple

import pytest

from bench.cli import main as bench_main
from bench.emulator.process import emulated_controller
from bench.emulator.threaded import threaded_controller
from bench.session.cycle import Phases, failure_clause
from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.journal.chain import verify_journal
from bench.play.players import PlayerMix
from bench.journal.disputed_round import plant_records
from bench.journal.replay import replay as replay_journal
from bench.report.summary import summarise
from bench.session.mutation import trial_rounds
from bench.session.runner import SessionConfig, run_session, session_rules

GAMES = ("lightning-dice", "sic-bo", "lightning-roulette", "dice-ology")


def session(tmp_path, **kw):
    config = SessionConfig(out=str(tmp_path / "out"), seed=kw.pop("seed", 21), progress=False, **kw)
    outcome = run_session(config)
    return outcome, summarise(config.game, outcome.rules, outcome.oracle, outcome.round_failures,
                              outcome.stakes_by_bet,
                              ignore_incomplete=set(outcome.oracle.incomplete_rounds))


@pytest.mark.parametrize("game", GAMES)
def test_compliant_controller_passes_every_round(tmp_path, game):
    outcome, summary = session(tmp_path, game=game, rounds=6)
    assert summary.violations == [], summary.violations
    assert summary.rounds == 6 and not outcome.round_failures
    assert verify_journal(outcome.journal, expected_head=outcome.head).ok
    assert summary.staked > 0 and summary.expected_rtp is not None


@pytest.mark.parametrize("controller_speaks,agreed", [(None, 2), (1, 1)])
def test_a_version_1_controller_is_played_in_version_1(tmp_path, controller_speaks, agreed):
    """The bench offers protocol 2 and falls back to 1 for a controller that
    speaks only 1 (real hardware may); the session is judged the same way."""
    outcome, summary = session(tmp_path, game="lightning-dice", rounds=3,
                               emulator_args=("--protocol", str(controller_speaks)) if controller_speaks else ())
    assert summary.violations == [] and summary.rounds == 3
    records = [json.loads(line) for line in outcome.journal.read_text().splitlines()]
    hellos = [row[6] for r in records for row in r.get("wire", ()) if row[6] and row[6]["type"] == "HELLO"
              and row[1] in ("send", "message")]
    assert hellos[-1]["role"] == "controller" and hellos[-1]["proto"] == agreed
    assert records[-1]["protocol"] == agreed


def test_staged_cocked_die_is_a_no_roll_that_returns_every_stake(tmp_path):
    outcome, summary = session(tmp_path, game="lightning-dice", rounds=3, seed=3)
    no_rolls = [r for r in outcome.oracle.rounds if r.no_roll]
    assert no_rolls, "seed 3 stages a cocked die in round 2 (bench.play.coverage)"
    assert all(r.returned == r.staked for r in no_rolls)
    plants = [p for r in no_rolls for p in plant_records(outcome.journal, r.round)]
    staged = [p for p in plants if p["detail"].get("staged") == "a die cocked"]
    assert staged and not all(staged[0]["flat"])
    assert staged[0]["seed"] >= 1_000_000            # a seed of the staging sweep (bench.play.staging), replayable
    assert "no-roll:1" in summary.coverage.covered


# One game per misbehaviour (every game of every one: tests/bench/test_mutation_score.py);
# the fair plant stages the probe rounds without a physics search. The misbehaving controller
# serves on a thread behind a pty (bench.emulator.threaded), as the mutation score's does: a
# process each cost more than the rounds played, and the emulated controller's own process
# with --misbehave is bench run's to start in test_cli_writes_journal_junit_and_summary_and_sets_exit_status.
CASES = [(name, sorted(cls.games)[0]) for name, cls in sorted(MISBEHAVIOURS.items())]


@pytest.mark.parametrize("name,game", CASES, ids=[f"{n}-{g}" for n, g in CASES])
def test_every_misbehaviour_fails_naming_its_clause(tmp_path, name, game):
    expected = MISBEHAVIOURS[name].expected_clauses(game)
    rounds = trial_rounds(name, game, 30)
    rules = session_rules(SessionConfig(game=game))
    with threaded_controller(game, rules, seed=21, misbehave=name) as url:
        outcome, summary = session(tmp_path, game=game, rounds=rounds, controller=url, plant="dice",
                                   stop_at_first_finding=True)
    assert not summary.passed
    named = set(summary.violations_by_clause) | {failure_clause(text) for text in summary.failures.values()}
    assert set(expected) & named, f"{name} should break one of {expected}; the bench named {sorted(named)}"
    # The journal replays to the run's verdict: the same exit status, the same clauses.
    replayed = replay_journal(outcome.journal, expected_head=outcome.head)
    assert replayed.intact and (replayed.ending, replayed.exit_status) == (outcome.ending, outcome.status)
    assert outcome.status == 1
    assert sorted(v.clause for v in replayed.oracle.violations) == sorted(v.clause for v in summary.violations)
    assert replayed.failed_rounds == outcome.round_failures


def test_an_external_controller_is_reached_by_its_url(tmp_path):
    with emulated_controller("sic-bo", seed=4, listen="127.0.0.1:0") as url:
        assert url.startswith("socket://")
        outcome, summary = session(tmp_path, game="sic-bo", rounds=3, controller=url)
    assert summary.passed and summary.rounds == 3
    header = json.loads(outcome.journal.read_text().splitlines()[0])
    assert header["controller"] == url and header["emulated"] is False


def test_realtime_session_keeps_the_wall_clock(tmp_path):
    phases = Phases(betting_s=0.3, lucky_s=0.1, result_s=0.1, clear_s=0.1)
    outcome, summary = session(tmp_path, game="dice-ology", rounds=1, realtime=True, phases=phases)
    assert summary.passed
    assert outcome.wall_seconds >= outcome.sim_seconds * 0.95


def recorded_drops(path, flats):
    """A recorded-outcomes file (as ``twin drop --json`` writes) with these flat flags, drop by drop."""
    lines = [json.dumps({"faces": [2, 3, 5], "dice": [{"face": f, "flat": flat} for f, flat in zip((2, 3, 5), flags)],
                         "seed": i, "settle_time_s": 0.05}) for i, flags in enumerate(flats)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_in_real_time_the_link_is_serviced_while_the_table_waits(tmp_path, monkeypatch):
    """A controller whose frames come late (here: half of them 0.1 s late)
    is still sending its settlements while the bench's table shows the
    result for result_s on the wall clock. The bench keeps acknowledging
    meanwhile: the controller never has to send a frame again (which, past
    its patience of 4 x 0.5 s, would end in it giving the frame up)."""
    pauses = table_pauses(monkeypatch)
    drops = recorded_drops(tmp_path / "drops.jsonl", [(True, True, True)])
    phases = Phases(betting_s=0.05, lucky_s=0.05, result_s=2.5, clear_s=0.05)
    outcome, summary = session(tmp_path, game="lightning-dice", rounds=1, realtime=True, phases=phases,
                               plant="recorded", design=drops, probes=False,
                               # ten wagers: talking that takes time between the pauses
                               players=PlayerMix.default("lightning-dice"), probe_wagers=False,
                               emulator_args=("--fault", "delay=0.5:0.1"))
    assert summary.passed and not outcome.round_failures
    records = [json.loads(line) for line in outcome.journal.read_text().splitlines()]
    sent_again = [row[5] for r in records for row in r.get("wire", ()) if row[1] == "duplicate"]
    assert sent_again == []
    # The table still keeps the wall clock: the time spent talking is not added to the pauses.
    # Every pause that lingers asks to stop by the wall moment the table's own time says it ends,
    # counted from the first pause (the table is never ahead of the wall clock), whatever the
    # machine's load made the talking before it cost. (How near the table's time a whole round
    # comes on this machine, talking included: benchmarks/wall_clock_bench.py.)
    start = pauses[0].called_at - pauses[0].table_at
    lingering = [p for p in pauses if p.lingered is not None]
    assert lingering, pauses
    for p in lingering:
        assert p.called_at + p.lingered <= start + p.table_at + p.seconds + 1e-6, (p, start)


class Pause(NamedTuple):
    table_at: float                     # the table's (simpy's) time when the pause began
    seconds: float                      # its length in table time
    called_at: float                    # time.monotonic() when it began
    lingered: float | None              # the wall seconds it then asked the link to linger (None: none)


def table_pauses(monkeypatch) -> list[Pause]:
    """The table's pauses (RoundCycle._pause) in a real-time session, with what each lingered."""
    from bench.protocol.session import Session
    from bench.session.cycle import RoundCycle
    pauses: list[Pause] = []
    lingers: list[float] = []
    real_pause, real_linger = RoundCycle._pause, Session.linger

    def linger(self, seconds):
        lingers.append(seconds)
        return real_linger(self, seconds)

    def pause(self, seconds):
        called_at, table_at, before = time.monotonic(), self.env.now, len(lingers)
        timeout = real_pause(self, seconds)
        pauses.append(Pause(table_at, seconds, called_at, lingers[before] if len(lingers) > before else None))
        return timeout

    monkeypatch.setattr(Session, "linger", linger)
    monkeypatch.setattr(RoundCycle, "_pause", pause)
    return pauses


def test_cli_writes_journal_junit_and_summary_and_sets_exit_status(tmp_path, capsys):
    # The console script's contract, in a process of its own, once; the failing run in this process
    # (the same main, its emulated controller still a process with --misbehave) on the fair plant.
    out = tmp_path / "ok"
    ok = subprocess.run([sys.executable, "-m", "bench.cli", "run", "--rounds", "3", "--seed", "5",
                         "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert "PASS" in ok.stdout and "return to player" in ok.stdout
    suite = ET.parse(out / "junit.xml").getroot()
    assert suite.get("tests") == "3" and suite.get("failures") == "0"
    assert json.loads((out / "summary.json").read_text())["rounds"] == 3
    status = bench_main(["run", "--rounds", "3", "--seed", "5", "--plant", "dice", "--misbehave", "five-lucky-numbers",
                         "--out", str(tmp_path / "bad")])
    assert status == 1
    assert "625b.2(d)(2)" in capsys.readouterr().out
    failures = ET.parse(tmp_path / "bad" / "junit.xml").getroot()
    assert int(failures.get("failures")) == 3


def test_bad_arguments_are_refused_before_anything_runs(tmp_path, capsys):
    status = bench_main(["run", "--bets", "total:11=2,banana=1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert "banana" in err and "625b.2(e)" in err
    assert not (tmp_path / "session.jsonl").exists()


def test_a_bad_design_is_refused_naming_the_field(tmp_path, capsys):
    status = bench_main(["run", "--design", "fixtures/towers/invalid/misspelt-field.yaml", "--out", str(tmp_path)])
    assert status == 2
    assert "misspelt-field.yaml: body.obstacels" in capsys.readouterr().err
    assert not (tmp_path / "session.jsonl").exists()


def test_a_controller_running_another_game_is_refused(tmp_path, capsys):
    with emulated_controller("sic-bo", seed=4, listen="127.0.0.1:0") as url:
        status = bench_main(["run", "--game", "lightning-dice", "--controller", url, "--rounds", "2",
                             "--plant", "dice", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert "lightning-dice" in err and "sic-bo" in err


def test_an_interrupted_session_keeps_the_round_in_flight(tmp_path, monkeypatch):
    """Ctrl-C in the middle of a round: the frames of that round, kept in
    memory until the round ends, are written before the session stops."""
    from bench.play import round_script
    real_fields = round_script.sensor_fields

    def interrupt_in_round_2(round_no, *args):
        if round_no == 2:
            raise KeyboardInterrupt
        return real_fields(round_no, *args)

    monkeypatch.setattr(round_script, "sensor_fields", interrupt_in_round_2)
    outcome, _ = session(tmp_path, game="lightning-dice", rounds=3, probes=False)
    assert (outcome.ending, outcome.status) == ("interrupted", 4)
    journal = tmp_path / "out" / "session.jsonl"
    report = verify_journal(journal, expected_head=(tmp_path / "out" / "session.head").read_text().strip())
    assert report.ok and report.ended
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    last_round = records[-2]
    assert last_round["kind"] == "round" and last_round["round"] == 2 and last_round["interrupted"]
    assert any("TRIGGER round=2" in row[5] for row in last_round["wire"])
    assert records[-1]["kind"] == "session-end" and records[-1]["ending"] == "interrupted"
    result = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(journal)],
                            capture_output=True, text=True, timeout=120)
    assert "1 rounds re-verified" in result.stdout and "round 2 failed" in result.stdout
    assert result.returncode == 4, result.stdout
