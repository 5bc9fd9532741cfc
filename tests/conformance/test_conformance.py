"""``bench conformance`` against the emulated controller: the compliant one
passes every check in both protocol versions, and each fault the emulator
can inject and each of its link-level misbehaviours fails the check that
covers it, naming its section."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
import sys
from xml.etree import ElementTree

import pytest

from bench.cli import main
from bench.conformance.checks import CHECKS, by_name
from bench.conformance.suite import FAIL, PASS, controller_url, run_suite
from bench.emulator.faults import FAULT_NAMES
from bench.emulator.link_misbehaviours import LINK_MISBEHAVIOURS
from bench.protocol import Timeouts
from bench.rules.submission import default_rules
from tests.link.conftest import REPO

GAME = "lightning-dice"
RULES = default_rules(GAME, None)
FAST = Timeouts(byte=0.1, frame=0.5, response=0.2, retries=2)   # the emulator is started with the same


def passes(version: int) -> list:
    with controller_url("emulated", GAME, FAST) as url:
        return run_suite(url, game=GAME, rules=RULES, timeouts=FAST, versions=(version,))


def test_the_emulator_passes_every_check_in_both_versions():
    # One emulator a version, side by side: the checks spend their time waiting on the link.
    with ThreadPoolExecutor(2) as pool:
        results = [r for rs in pool.map(passes, (1, 2)) for r in rs]
    failed = [f"{r.id}: {r.detail}" for r in results if r.status != PASS]
    assert failed == []
    ran = {(r.check.name, r.version) for r in results}
    assert {c.name for c in CHECKS} == {name for name, _ in ran}
    assert {v for _, v in ran} == {1, 2}
    assert all(r.seconds < 5 for r in results)


# fault -> the check that covers it (docs/protocol.md section named by the check)
FAULT_CHECK = {
    "corrupt=0.3": "frames-valid",            # a damaged frame from the controller, §2
    "drop=0.3": "acks-every-message",         # an ACK never sent, §3
    "duplicate=0.3": "numbering",             # a message sent twice unprompted, §2/§3
    "delay=0.15:0.8": "acks-every-message",   # an ACK later than the response timeout, §3
    "reset=1": "round-state-chart",           # RESET instead of RELEASE at the trigger, §12
}


def test_every_fault_of_the_emulator_is_covered():
    assert {spec.partition("=")[0] for spec in FAULT_CHECK} == set(FAULT_NAMES)


# link-level misbehaviour -> the check that covers it, and the version it shows in
LINK_CHECK = {
    "ignores-crc": ("rejects-bad-crc", 1),
    "never-naks": ("rejects-bad-syntax", 1),
    "never-retransmits": ("retransmits-then-gives-up", 1),
    "delivers-duplicates": ("duplicate-frame", 1),
    "ignores-window": ("window", 2),
}


def test_every_link_misbehaviour_of_the_emulator_is_covered():
    assert set(LINK_CHECK) == set(LINK_MISBEHAVIOURS)


def fails(option: str, name: str, version: int, timeouts: Timeouts = FAST) -> None:
    """Against ``emulated:OPTION`` the check ``name`` fails, with its wire log."""
    check = by_name()[name]
    with controller_url(f"emulated:{option}", GAME, timeouts) as url:
        results = run_suite(url, game=GAME, rules=RULES, timeouts=timeouts, versions=(version,),
                            only=lambda c: c is check)
    (result,) = results
    assert result.status == FAIL, result.detail
    assert result.wire_log                      # what crossed the link, for the vendor to read
    assert check.section.startswith("§")


@pytest.mark.parametrize("fault", sorted(FAULT_CHECK))
def test_each_fault_fails_the_check_that_covers_it(fault):
    fails(f"fault={fault}", FAULT_CHECK[fault], 1)


@pytest.mark.parametrize("name", sorted(LINK_CHECK))
def test_each_link_misbehaviour_fails_the_check_that_covers_it(name):
    fails(f"link={name}", *LINK_CHECK[name])


@pytest.mark.parametrize("misbehaviour", ("refuse-max-stake", "refuse-min-stake", "accept-over-limit"))
def test_a_controller_that_gets_the_stake_limits_wrong_fails_the_stake_limits_check(misbehaviour):
    fails(misbehaviour, "stake-limits", 1)


def bench(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["conformance", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_command_reports_each_check_with_its_section_writes_junit_and_exits_0(tmp_path, capsys):
    junit = tmp_path / "conformance.xml"
    status, out, err = bench(capsys, "--controller", "emulated:protocol=1", "--check", "rejects-bad-crc",
                             "--check", "hello-version", "--response-timeout", "0.2", "--retries", "2",
                             "--junit", str(junit))
    assert status == 0, out + err
    lines = out.splitlines()
    assert any(line.startswith("PASS") and "rejects-bad-crc[v1]" in line and "§2 Frames" in line for line in lines)
    assert any(line.startswith("SKIP") and "hello-version-2[v2]" in line and "optional" in line for line in lines)
    cases = ElementTree.parse(junit).getroot().findall("testcase")
    assert "rejects-bad-crc[v1]" in {case.get("name") for case in cases}
    assert not [case for case in cases if case.find("failure") is not None]


def test_a_failing_check_exits_1_with_its_wire_log(capsys):
    status, out, err = bench(capsys, "--controller", "emulated:fault=reset=1", "--protocol", "1",
                             "--check", "round-state-chart")
    assert status == 1, out + err
    assert "FAIL" in out and "§12" in out and "RESET reason=fault" in out
    assert "> $0000 HELLO proto=1" in out                  # the wire log of the failed check


def test_bad_usage_is_one_line_and_exit_2(capsys):
    status, out, err = bench(capsys, "--controller", "emulated:colour=red")
    assert status == 2
    assert err.count("\n") == 1 and "colour" in err


def test_a_silent_controller_fails_every_check_in_bounded_time(tmp_path):
    import socket
    from bench.conformance.checks import SLACK_S
    server = socket.create_server(("127.0.0.1", 0))
    host, port = server.getsockname()[:2]
    try:
        check = by_name()["rejects-bad-crc"]
        results = run_suite(f"socket://{host}:{port}", game=GAME, rules=RULES, timeouts=FAST, versions=(1,),
                            only=lambda c: c is check)
    finally:
        server.close()
    assert [r.status for r in results] == [FAIL]
    # Failed at its own deadline for the ACK (that it ends at all: pytest-timeout guards it).
    assert f"no ACK of the bench's HELLO within {FAST.response + SLACK_S:.2f} s" in results[0].detail



def test_the_same_checks_run_under_pytest_one_test_per_check_and_version():
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "conformance",
                           "bench/conformance/test_controller.py", "--controller", "emulated:protocol=1",
                           "-k", "rejects-bad-crc or hello-version", "-rs"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    # rejects-bad-crc and hello-version-1 in v1; in version 2, not spoken: skipped
    assert "2 passed" in summary and "2 skipped" in summary, done.stdout
    assert "does not speak version 2" in done.stdout


def test_checks_do_not_disturb_each_other_when_the_controller_outlives_the_connection():
    """Over a pty (as over a serial line) the controller keeps its session
    from one check's connection to the next: every check's HELLO must still
    start it afresh, and no check may leave it resending into the next."""
    from bench.emulator.process import emulator_process
    names = ("window", "duplicate-frame", "go-back-n", "hello-resent", "cumulative-ack")
    with emulator_process(["--game", GAME, "--seed", "7", "--response-timeout", "0.2", "--retries", "2"],
                          listen="pty") as url:
        results = run_suite(url, game=GAME, rules=RULES, timeouts=FAST, versions=(2,),
                            only=lambda c: c.name in names)
    assert [(r.id, r.status) for r in results if r.status != PASS] == []
    assert len(results) == len(names)


def test_a_controller_that_cannot_be_opened_is_bad_usage(capsys):
    status, out, err = bench(capsys, "--controller", "/dev/no-such-controller")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "/dev/no-such-controller" in err


def test_a_controller_that_goes_on_after_a_new_hello_without_the_void_fails_section_5():
    """docs/protocol.md section 5: after a new HELLO mid-round the controller
    voids the round in flight before it opens the next. One that opens the
    next round and leaves the old one unsettled (on a serial line, where the
    controller outlives the session, the next session meets exactly this)
    fails the checks of a HELLO in each phase, naming the section."""
    import threading

    from bench.emulator.controller import EmulatedController
    from bench.emulator.server import serve
    from bench.protocol import Session

    class OpensWithoutVoiding(EmulatedController):
        def _on_hello(self, m):
            if self.state in ("idle", "cleared"):
                return super()._on_hello(m)
            self.session.use_protocol(m["proto"], peer_window=m.get("window"))
            self._hello()
            self._open_round()             # round N is left as it was: no SETTLE, SETTLED void=1, CLEARED

    stop, ready, where = threading.Event(), threading.Event(), []

    def on_connection(link):
        OpensWithoutVoiding(Session(link, GAME, role="controller", timeouts=FAST), game=GAME, rules=RULES,
                            seed=7).serve(stop.is_set, idle_poll=0.02)

    def announce(line):
        where.append(line.split(" ", 1)[1])
        ready.set()

    thread = threading.Thread(target=serve, args=("pty", on_connection),
                              kwargs=dict(announce=announce, should_stop=stop.is_set), daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        results = run_suite(where[0], game=GAME, rules=RULES, timeouts=FAST, versions=(1,),
                            only=lambda c: c.name in ("hello-closed", "hello-released", "hello-before-any-wager"))
    finally:
        stop.set()
        thread.join(5)
    assert [(r.check.name, r.status) for r in results] == [
        ("hello-before-any-wager", FAIL), ("hello-closed", FAIL), ("hello-released", FAIL)]
    assert all("section 5 gives SETTLE" in r.detail or "section 5 gives SETTLED" in r.detail for r in results), \
        [r.detail for r in results]
