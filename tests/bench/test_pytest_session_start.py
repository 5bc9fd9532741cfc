"""``pytest features/ --controller DEVICE`` against a controller left on
between sessions (docs/protocol.md 5): what the oracle finds while the
session starts (the controller's void of the round the earlier session left
open) fails a named scenario, the first one played on it, as ``bench run``
reports it and ``bench replay`` of the run's journal finds it.

Issue 45: a controller that voided its open round without ``void=1`` was
flagged by ``bench run`` but passed pytest (57 of 57), while ``bench replay``
of the journal pytest wrote exited 1: the verdict named the earlier
session's round, which no scenario plays, so no scenario owned it."""

from __future__ import annotations

import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

from bench.emulator.controller import EmulatedController
from bench.protocol import BENCH, Session
from bench.protocol.greeting import greet
from bench.protocol.link import open_link
from bench.rules.submission import default_rules
from tests.pty_controller import controller_on_pty

ROOT = Path(__file__).resolve().parents[2]
GAME = "lightning-dice"
SCENARIOS = "not_authorized_under_subsection_e"     # eight refusals: a few seconds on the controller


class VoidsWithoutTheFlag(EmulatedController):
    """A controller whose void (after a HELLO or RESET) says SETTLED without
    ``void=1``: a breach of section 5 that only a session's start shows."""

    def _finish(self, *, void: bool = False, cleared: bool = False) -> None:
        super()._finish(void=False, cleared=cleared)


def left_on(stop: threading.Event) -> str:
    """The misbehaving controller left on behind a pty: a session may end and another begin."""
    return controller_on_pty(GAME, stop, VoidsWithoutTheFlag)


def earlier_session(device: str) -> None:
    """A session that greets the controller and goes: round 1 is left open."""
    link = open_link(device)
    try:
        session = Session(link, GAME, role=BENCH)
        greet(session, game=GAME, rules=default_rules(GAME), software="tests/earlier", reply_s=3.0)
        assert session.receive(3.0, expect="OPEN")["round"] == 1
        session.flush(3.0)
    finally:
        link.close()


def test_a_session_start_finding_fails_the_first_scenario_played_on_the_controller(tmp_path):
    stop = threading.Event()
    try:
        device = left_on(stop)
        earlier_session(device)
        junit, logs = tmp_path / "junit.xml", tmp_path / "wire"
        run = subprocess.run([sys.executable, "-m", "pytest", "features/test_lightning_dice_on_controller.py", "-k",
                              SCENARIOS, f"--controller={device}", "--controller-game", GAME, "-p", "no:cacheprovider",
                              f"--junitxml={junit}", f"--controller-log={logs}"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    finally:
        stop.set()
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    failed = [case for case in cases if case.findall("failure") or case.findall("error")]
    assert run.returncode == 1 and len(cases) == 8, run.stdout[-3000:]
    # One scenario owns it, the first played; the others pass.
    assert [case.get("name") for case in failed] == [cases[0].get("name")], [c.get("name") for c in failed]
    text = "".join((bad.get("message") or "") + (bad.text or "") for bad in failed[0])
    assert "[protocol] round 1" in text and "without void=1" in text and "bench docs protocol 5" in text, text[:2000]
    # bench replay of the run's journal finds the same, and says the journal agrees with what the bench judged.
    [journal] = logs.glob("journal-*.jsonl")
    head = journal.with_suffix(".head").read_text().strip()
    replayed = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(journal), "--head", head],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 1 and "without void=1" in replayed.stdout, replayed.stdout[-2000:]
