"""bench monitor as its user meets it when something is wrong: bad
arguments and set-up get exit status 2 and one line, a controller that
cannot be reached behind the relay 3, SIGTERM 4 with every file written;
never a traceback."""

from __future__ import annotations

import json
import signal
import socket

import pytest

from bench.cli import main
from bench.journal.replay import replay
from tests.monitor.conftest import finished, monitor_process

BASE = ["monitor", "--game", "lightning-dice"]


@pytest.mark.parametrize("args,words", [
    (["--relay", "127.0.0.1:0"], "--relay needs --to"),
    (["--relay", "127.0.0.1:0", "--to", "socket://x:1", "--host-line", "/dev/null"], "not both"),
    ([], "say where to listen"),
    (["--host-line", "/dev/null", "--controller-line", "/dev/null", "--once"], "--once goes with --relay"),
    (["--relay", "127.0.0.1:0", "--to", "socket://127.0.0.1:1", "--adapter", "acme-wheel"], "acme-wheel"),
    (["--relay", "127.0.0.1:0", "--to", "socket://127.0.0.1:1", "--rounds", "0"], "--rounds"),
    (["--relay", "127.0.0.1:0", "--to", "socket://127.0.0.1:1", "--rotate-mb", "0"], "--rotate-mb"),
    (["--host-line", "/dev/null", "--controller-line", "/dev/null", "--hold-s", "11"], "--hold-s"),
    (["--host-line", "/no/such/line", "--controller-line", "/no/such/other"], "/no/such/line"),
    (["--relay", "not-an-address", "--to", "socket://127.0.0.1:1"], "HOST:PORT"),
])
def test_bad_arguments_and_set_up_are_one_line_and_status_2(tmp_path, capsys, args, words):
    assert main(BASE + args + ["--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_a_folder_holding_monitor_journals_is_refused(tmp_path, capsys):
    (tmp_path / "monitor-0001.jsonl").write_text("{}\n")
    assert main(BASE + ["--relay", "127.0.0.1:0", "--to", "socket://127.0.0.1:1", "--out", str(tmp_path)]) == 2
    assert "holds monitor journals" in capsys.readouterr().err


def test_a_controller_that_cannot_be_reached_behind_the_relay_is_status_3(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    with monitor_process(*BASE[1:], "--relay", "127.0.0.1:0", "--to", f"socket://127.0.0.1:{port}",
                         "--out", tmp_path / "m") as (proc, first):
        host, relay_port = first.split("//")[1].split(":")
        with socket.create_connection((host, int(relay_port)), timeout=5):
            status, out, err = finished(proc)
    assert status == 3 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("bench monitor: link-lost:")
    end = json.loads((tmp_path / "m" / "monitor-0001.jsonl").read_text().splitlines()[-1])
    assert (end["kind"], end["ending"], end["status"]) == ("session-end", "link-lost", 3)


def test_sigterm_ends_the_monitor_with_its_journal_written(tmp_path):
    with monitor_process(*BASE[1:], "--relay", "127.0.0.1:0", "--to", "socket://127.0.0.1:9",
                         "--out", tmp_path / "m") as (proc, first):
        assert first.startswith("listening socket://")
        proc.send_signal(signal.SIGTERM)
        status, out, err = finished(proc)
    assert status == 4 and "Traceback" not in err
    [journal] = (tmp_path / "m").glob("monitor-*.jsonl")
    again = replay(journal, expected_head=journal.with_suffix(".head").read_text().strip())
    assert again.intact and (again.ending, again.exit_status) == ("interrupted", 4)
