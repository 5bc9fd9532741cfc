"""`bench emulate` refuses bad options with a message naming what is wrong,
and serves the documented address form."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.link.conftest import REPO, connect, hello


def emulate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli", "emulate", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("args, message", [
    (["--fault", "corrupt=2"], "--fault 'corrupt=2': corrupt takes a rate from 0 to 1"),
    (["--fault", "jitter=0.1"], "expected NAME=VALUE with NAME one of corrupt, drop, duplicate, delay, reset"),
    (["--misbehave", "six-lucky-numbers"], "applies to lightning-roulette, not lightning-dice"),
    (["--submission", "fixtures/submissions/sic-bo-A.yaml"], "the submission is for sic-bo, not lightning-dice"),
    (["--response-timeout", "0"], "response timeout must be positive and finite"),
])
def test_bad_options_are_refused_with_a_reason(args, message):
    done = emulate("--game", "lightning-dice", "--listen", "127.0.0.1:0", *args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""


def test_a_submission_file_is_served_and_its_digest_announced(emulator):
    with emulator("--game", "sic-bo", "--submission", "fixtures/submissions/sic-bo-B.yaml", "--seed", "2") as url:
        session = connect(url, "sic-bo")
        try:
            their_hello, opened = hello(session, "sic-bo")
        finally:
            session.port.close()
    assert their_hello["paytable"] == "B" and len(their_hello["rules"]) == 16 and opened["round"] == 1
