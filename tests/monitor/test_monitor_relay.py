"""bench monitor on a relay between bench run and the emulated controller
(issue 30's Done-when): over the bench's own protocol and over the example
adapter, against a compliant and a misbehaving controller, the monitor
journals and judges the same rounds as the run, with the same verdicts; its
journal replays to them; the relay forwards every byte unchanged and adds
none; and the monitor's exit status is the run's."""

from __future__ import annotations

import pytest

from bench.adapters.registry import get_adapter
from bench.emulator.process import emulator_process
from bench.journal.replay import replay
from bench.protocol import CONTROLLER
from bench.session.runner import SessionConfig, run_session
from tests.monitor.conftest import bytes_each_way, finished, monitor_process, records, verdicts

GAME = "lightning-dice"
CASES = [(None, None), (None, "lucky-before-no-more-bets"), ("ascii-sentence", None),
         ("ascii-sentence", "pay-on-no-roll")]


@pytest.mark.parametrize("adapter,misbehave", CASES,
                         ids=[f"{a or 'tablebench'}-{m or 'compliant'}" for a, m in CASES])
def test_the_monitor_on_a_relay_gives_the_runs_rounds_and_verdicts(tmp_path, adapter, misbehave):
    speaks = ["--adapter", adapter] if adapter else []
    emulate = ["--game", GAME, "--seed", "5", *speaks] + (["--misbehave", misbehave] if misbehave else [])
    with emulator_process(emulate, listen="127.0.0.1:0") as controller:
        with monitor_process("--game", GAME, *speaks, "--relay", "127.0.0.1:0", "--to", controller, "--once",
                             "--out", tmp_path / "monitor") as (proc, announced):
            assert announced.startswith("listening socket://127.0.0.1:")
            run = run_session(SessionConfig(game=GAME, controller=announced.split()[1], adapter=adapter, rounds=4,
                                            plant="dice", seed=8, out=str(tmp_path / "run"), progress=False))
            status, out, err = finished(proc)
    assert run.status == (1 if misbehave else 0)
    assert status == run.status, out[-2000:] + err[-2000:]
    journals = sorted((tmp_path / "monitor").glob("monitor-*.jsonl"))
    assert len(journals) == 1
    watched = replay(journals[0], expected_head=journals[0].with_suffix(".head").read_text().strip(), redecode=True)
    assert watched.intact and watched.exit_status == run.status
    # The same rounds judged whole, and the same verdicts, live and on replay.
    assert [r.round for r in watched.oracle.rounds] == [r.round for r in run.oracle.rounds] == [1, 2, 3, 4]
    assert verdicts(journals) == verdicts([run.journal])
    assert sorted((v.round, v.clause, v.message) for v in watched.oracle.violations) == verdicts([run.journal])
    if misbehave:
        assert verdicts(journals), "the misbehaviour must show"
    # Every byte each way, as the bench sent and received it: the relay adds, drops and changes none.
    # (The controller opens round 5 as the bench hangs up: the monitor may hear that OPEN, unread by the bench.)
    heard, said = bytes_each_way(journals), bytes_each_way([run.journal])
    assert heard["tx"] == said["tx"]
    assert heard["rx"].startswith(said["rx"])
    extra = get_adapter(adapter).stream_decoder(GAME, CONTROLLER).feed(heard["rx"][len(said["rx"]):], 0.0)
    assert [(item.message.type, item.message.round) for item in extra] in ([], [("OPEN", 5)])


def test_on_a_lossy_link_the_monitor_takes_what_the_bench_took(tmp_path):
    """Frames lost and damaged on the controller's side: in version 2 a frame
    past a gap is discarded by the bench until the gap is filled, and the
    monitor, which heard it first, must not take it first either."""
    emulate = ["--game", GAME, "--seed", "3", "--fault", "drop=0.03", "--fault", "corrupt=0.03"]
    with emulator_process(emulate, listen="127.0.0.1:0") as controller:
        with monitor_process("--game", GAME, "--relay", "127.0.0.1:0", "--to", controller, "--once",
                             "--out", tmp_path / "monitor") as (proc, announced):
            run = run_session(SessionConfig(game=GAME, controller=announced.split()[1], rounds=6, plant="dice",
                                            seed=3, out=str(tmp_path / "run"), progress=False))
            status, out, err = finished(proc)
    journals = sorted((tmp_path / "monitor").glob("monitor-*.jsonl"))
    kinds = {row[1] for record in records(journals) for row in record.get("wire") or ()}
    assert kinds & {"rejected", "duplicate", "out-of-order"}, "the faults must have touched the link"
    assert verdicts(journals) == verdicts([run.journal])
    assert [r.round for r in replay(journals[0]).oracle.rounds] == [r.round for r in run.oracle.rounds]
