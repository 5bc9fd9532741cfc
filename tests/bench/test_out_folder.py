"""--out never loses a journal: a folder holding a session, or one in which a
session is running, is refused; --force moves a finished session aside."""

import fcntl
import os
import subprocess
import sys

import pytest

from bench.errors import BenchError
from bench.session.out_folder import LOCK, claimed
from tests import console


def run(out, *more):
    """``bench run`` through its main in this process (tests/console.py); two processes racing for
    one folder are test_two_runs_started_together_leave_one_whole_session's."""
    return console.bench("run", "--rounds", "1", "--seed", "2", "--no-probes", "--game", "sic-bo", "--out", out, *more)


def test_a_second_run_into_the_same_folder_is_refused_and_force_moves_the_first_aside(tmp_path):
    out = tmp_path / "s"
    first = run(out)
    assert first.returncode == 0, first.stderr
    journal = (out / "session.jsonl").read_bytes()
    again = run(out)
    assert again.returncode == 2
    said = [line for line in again.stderr.splitlines() if not line.startswith("pybullet build time")]
    assert len(said) == 1 and "holds a session" in said[0], again.stderr
    assert (out / "session.jsonl").read_bytes() == journal
    forced = run(out, "--force")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "s.old-1" / "session.jsonl").read_bytes() == journal
    assert (out / "session.jsonl").read_bytes() != journal
    assert not (out / LOCK).exists()


def test_a_folder_with_a_session_running_is_refused_even_with_force(tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"4242\n")
    try:
        for force in (False, True):
            with pytest.raises(BenchError, match="a session is running in this folder \\(pid 4242\\)"):
                with claimed(out, force=force):
                    pass
    finally:
        os.close(fd)
    # The lock of a process that died (here: closed) no longer holds the folder.
    with claimed(out) as moved:
        assert moved is None and (out / LOCK).read_text().strip() == str(os.getpid())


def test_two_runs_started_together_leave_one_whole_session(tmp_path):
    out = tmp_path / "s"
    procs = [subprocess.Popen([sys.executable, "-m", "bench.cli", "run", "--rounds", "2", "--seed", str(seed),
                               "--no-probes", "--game", "sic-bo", "--out", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seed in (1, 2)]
    results = [(p.wait(timeout=300), p.communicate()[1]) for p in procs]
    assert sorted(code for code, _ in results) == [0, 2], results
    from bench.journal.replay import replay
    outcome = replay(out / "session.jsonl", expected_head=(out / "session.head").read_text().strip())
    assert outcome.passed and len(outcome.oracle.rounds) == 2
