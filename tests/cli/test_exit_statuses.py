"""Exit statuses that mean what they say (README's table): bad arguments and
an --out that cannot be used are 2, a journal not as a bench writes it is 1,
an interrupted replay is 4, each with one line and never a traceback."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.cli import main as bench_main
from bench.journal.chain import JournalWriter
from bench.session.runner import SessionConfig, run_session
from tablebench_io.commandline import Exit

REPO = Path(__file__).resolve().parents[2]
QUICK = ["--rounds", "1", "--plant", "dice", "--no-probes", "--no-progress"]


def call(argv, capsys):
    status = bench_main([str(a) for a in argv])
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if line and not line.startswith("pybullet build time")]
    assert "Traceback" not in captured.err
    return status, said, captured.out


@pytest.mark.parametrize("seed", ["-1", "1234567890123456789012345678901"], ids=["negative", "31-digits"])
def test_a_seed_the_protocol_cannot_carry_is_bad_input(capsys, tmp_path, seed):
    status, said, _ = call(["run", *QUICK, "--seed", seed, "--out", tmp_path / "s"], capsys)
    assert status == Exit.BAD_INPUT
    assert len(said) == 1 and "--seed" in said[0] and "999999999999999" in said[0], said
    assert not (tmp_path / "s" / "session.jsonl").exists()


def test_an_out_folder_under_a_regular_file_is_bad_input(capsys, tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    status, said, _ = call(["run", *QUICK, "--out", tmp_path / "a-file" / "s"], capsys)
    assert status == Exit.BAD_INPUT
    assert len(said) == 1 and "a-file" in said[0] and "--out" in said[0], said


def test_an_out_folder_on_a_read_only_file_system_is_bad_input(capsys, tmp_path, monkeypatch):
    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
    monkeypatch.setattr(Path, "mkdir", read_only)
    status, said, _ = call(["run", *QUICK, "--out", tmp_path / "ro" / "s"], capsys)
    assert status == Exit.BAD_INPUT
    assert len(said) == 1 and "Read-only file system" in said[0] and "--out" in said[0], said


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("session") / "s"
    return run_session(SessionConfig(game="lightning-dice", rounds=2, seed=5, out=str(out), progress=False,
                                     probes=False, plant="dice"))


def rechained(recorded, path: Path, change) -> Path:
    records = [json.loads(line) for line in recorded.journal.read_text().splitlines()]
    for record in records:
        change(record)
    with JournalWriter(path) as journal:
        for record in records:
            journal.append(record["kind"], **{k: v for k, v in record.items()
                                              if k not in ("kind", "seq", "prev", "hash")})
    return path


WIRES = {"a-number": 5, "a-list-of-numbers": [1, 2], "a-string": "x", "eight-characters": ["abcdefgh"],
         "a-message-that-is-a-string": [["rx", "message", 1, 2, 3, "x", "str", None]],
         "raw-that-is-a-number": [["rx", "message", 1, 2, 3, 7, {"type": "NOMORE", "seq": 1}, None]],
         "an-unknown-message": [["rx", "message", 1, 2, 3, "x", {"type": "X", "seq": 1}, None]]}


@pytest.mark.parametrize("wire", WIRES, ids=list(WIRES))
def test_a_rechained_journal_whose_wire_is_not_frames_fails_as_changed(capsys, recorded, tmp_path, wire):
    def change(record):
        if record["kind"] == "round":
            record["wire"] = WIRES[wire]
    path = rechained(recorded, tmp_path / "j.jsonl", change)
    for extra in ([], ["--report", tmp_path / "r.html"]):
        status, said, out = call(["replay", path, *extra], capsys)
        assert status == Exit.VIOLATION, (out, said)
        assert "FAIL" in out and "line 2" in out, out


def test_a_header_whose_phases_are_not_phases_is_refused_in_one_line(capsys, recorded, tmp_path):
    def change(record):
        if record["kind"] == "session":
            record["phases"] = "x"
    status, said, _ = call(["replay", rechained(recorded, tmp_path / "j.jsonl", change)], capsys)
    assert status == Exit.BAD_INPUT and len(said) == 1 and "phases" in said[0], said


@pytest.mark.parametrize("head", ["", "not-a-hash", "ab" * 31 + "zz"], ids=["empty", "words", "not-hex"])
def test_a_head_that_is_not_a_hash_is_bad_input(capsys, recorded, head):
    status, said, _ = call(["replay", recorded.journal, "--head", head], capsys)
    assert status == Exit.BAD_INPUT and len(said) == 1 and "--head" in said[0], said


def test_sigterm_stops_a_replay_with_exit_4_and_a_line(recorded, tmp_path):
    """A journal long enough that replay is still reading when the signal comes."""
    records = [json.loads(line) for line in recorded.journal.read_text().splitlines()]
    round_record = next(r for r in records if r["kind"] == "round")
    path = tmp_path / "long.jsonl"
    with JournalWriter(path) as journal:
        journal.append("session", **{k: v for k, v in records[0].items() if k not in ("kind", "seq", "prev", "hash")})
        body = {k: v for k, v in round_record.items() if k not in ("kind", "seq", "prev", "hash")}
        for _ in range(30_000):
            journal.append("round", **body)
    proc = subprocess.Popen([sys.executable, "-m", "bench.cli", "replay", str(path)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    assert proc.poll() is None, "the replay ended before the signal: make the journal longer"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == Exit.INTERRUPTED, (proc.returncode, err)
    said = [line for line in err.splitlines() if line.strip()]
    assert said == ["bench replay: interrupted (SIGTERM)"], err


@pytest.mark.parametrize("when", ["the commands import", "the arguments are read"])
def test_sigterm_before_the_command_starts_is_exit_4_and_a_line(capsys, monkeypatch, when):
    """The commands' modules take most of a second to import; a SIGTERM then
    (a service manager stopping a bench it has just started), or while the
    arguments are read, killed the process with no line and no status of the
    bench's."""
    import tablebench_io.commandline as commandline
    build = commandline.build_parser
    before = signal.getsignal(signal.SIGTERM)

    def terminated():
        # Raised only where the bench has taken SIGTERM: without that the signal would kill pytest.
        assert signal.getsignal(signal.SIGTERM) not in (before, signal.SIG_DFL), f"SIGTERM not taken while {when}"
        signal.raise_signal(signal.SIGTERM)

    def build_then_terminated(*args, **kwargs):
        parser = build(*args, **kwargs)
        if when == "the commands import":
            terminated()
        else:
            read = parser.parse_args
            parser.parse_args = lambda argv=None: (terminated(), read(argv))[1]
        return parser
    monkeypatch.setattr(commandline, "build_parser", build_then_terminated)
    status, said, out = call(["run", *QUICK], capsys)
    assert status == Exit.INTERRUPTED and said == ["bench: interrupted (SIGTERM) before the command started"], said
    assert signal.getsignal(signal.SIGTERM) == before          # the caller's handler is put back
