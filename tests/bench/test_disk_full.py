"""A full disk is its own ending (disk-full, exit status 6): the session
writes what still fits, its journal verifies, one line says what was not
written, and no report path is printed that was not written."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bench.report.page as report_page
import bench.session.runner as runner
from bench.cli import main as bench_main
from bench.journal.chain import JournalWriter, verify_journal
from bench.journal.replay import replay
from bench.session.out_folder import RESERVE, Reserve
from tablebench_io.commandline import Exit

REPO = Path(__file__).resolve().parents[2]
QUICK = ["--plant", "dice", "--no-probes", "--seed", "5", "--no-progress"]


def no_space(path="") -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


class FullDisk:
    """The disk holding the session fills once its journal passes ``after``
    bytes; it has room again only if the session's reserve is let go."""

    def __init__(self, monkeypatch, after: int, reserve: bool):
        self.after, self.full, self.room = after, False, False
        write, release = JournalWriter._write, Reserve.release
        disk = self

        def journal_write(writer, line):
            if not disk.room and (disk.full or writer.size + len(line) > disk.after):
                disk.full = True
                raise no_space(writer.path)
            write(writer, line)

        def let_go(reserve_):
            if reserve_.path is not None and disk.full:
                disk.room = True
            release(reserve_)

        def guarded(original):
            def write_file(path, *args, **kwargs):
                if disk.full and not disk.room:
                    raise no_space(path)
                return original(path, *args, **kwargs)
            return write_file
        monkeypatch.setattr(JournalWriter, "_write", journal_write)
        monkeypatch.setattr(Reserve, "release", let_go)
        for module, name in ((runner, "write_durably"), (runner, "write_junit"), (report_page, "_write_whole")):
            monkeypatch.setattr(module, name, guarded(getattr(module, name)))
        if not reserve:
            monkeypatch.setattr(os, "posix_fallocate", lambda *a: (_ for _ in ()).throw(no_space()))


def run(capsys, out: Path, rounds: int = 40):
    status = bench_main(["run", "--rounds", str(rounds), "--out", str(out), *QUICK])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, [line for line in captured.err.splitlines() if line.startswith("bench run:")]


def test_a_disk_that_fills_mid_session_ends_it_disk_full_with_every_file(capsys, monkeypatch, tmp_path):
    disk = FullDisk(monkeypatch, after=150_000, reserve=True)
    out = tmp_path / "s"
    status, stdout, said = run(capsys, out)
    assert disk.full and status == Exit.DISK_FULL
    assert len(said) == 1 and said[0].startswith("bench run: disk-full: the disk holding") and "exit status 6" in said[0]
    for name in ("session.jsonl", "session.head", "summary.json", "junit.xml", "report.html"):
        assert (out / name).exists(), name
    assert not (out / RESERVE).exists() and not list(out.glob(".*.tmp")) and not list(out.glob("*.partial"))
    chain = verify_journal(out / "session.jsonl", expected_head=(out / "session.head").read_text().strip())
    assert chain.ok and chain.ended
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["ending"], summary["status"]) == ("disk-full", 6)
    replayed = replay(out / "session.jsonl")
    assert replayed.intact and (replayed.ending, replayed.exit_status) == ("disk-full", 6)


def test_a_disk_too_full_for_the_reserve_writes_what_fits_and_names_the_rest(capsys, monkeypatch, tmp_path):
    FullDisk(monkeypatch, after=150_000, reserve=False)
    out = tmp_path / "s"
    status, stdout, said = run(capsys, out)
    assert status == Exit.DISK_FULL and len(said) == 1
    assert "NOT written: " in said[0]
    missing = said[0].split("NOT written: ")[1]
    for name in ("session-end record", "session.head", "junit.xml", "summary.json", "report.html"):
        assert name in missing, said[0]
        if "." in name:
            assert not (out / name).exists()
    assert "report:" not in stdout
    assert not list(out.glob(".*.tmp")) and not list(out.glob("*.partial")) and not (out / RESERVE).exists()
    chain = verify_journal(out / "session.jsonl")
    assert chain.ok and not chain.ended and not chain.torn_tail     # cut back to its last whole record


def _can_mount_tmpfs() -> bool:
    if not shutil.which("unshare"):
        return False
    done = subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c", "mount -t tmpfs none /mnt"],
                          capture_output=True, timeout=30)
    return done.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="a real full disk needs a mount namespace (unshare); the "
                                                   "tests above cover the same endings with the disk simulated")
def test_a_real_full_disk(tmp_path):
    """A 1.8 MB tmpfs in a mount namespace of its own: the bench on a real full disk."""
    disk, copy = tmp_path / "disk", tmp_path / "copy"
    disk.mkdir()
    script = (f"mount -t tmpfs -o size=1800k none {disk} && "
              f"{sys.executable} -m bench.cli run --rounds 400 --out {disk}/s {' '.join(QUICK)} > {tmp_path}/out 2> {tmp_path}/err; "
              f"echo $? > {tmp_path}/status; cp -r {disk}/s {copy}")
    subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c", script], cwd=REPO, timeout=300, check=True)
    said = [line for line in (tmp_path / "err").read_text().splitlines() if line.startswith("bench run:")]
    assert int((tmp_path / "status").read_text()) == Exit.DISK_FULL, said
    assert len(said) == 1 and "No space left on device" in said[0]
    for name in ("session.jsonl", "session.head", "summary.json", "junit.xml"):
        assert (copy / name).exists(), name
    assert (copy / "report.html").exists() == ("report:" in (tmp_path / "out").read_text())
    replayed = replay(copy / "session.jsonl", expected_head=(copy / "session.head").read_text().strip())
    assert replayed.intact and (replayed.ending, replayed.exit_status) == ("disk-full", 6)
