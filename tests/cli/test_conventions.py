"""The command-line conventions a user relies on across every command of
``bench`` and ``twin``: --version, help for every option, progress bars only
for a terminal, no PyBullet banner, and one exit-status table (exit 2 and one
line, never a traceback, for bad input)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

import bench
import bench.commands
import twin
import twin.commands
from tablebench_io.commandline import Exit, build_parser

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = {"bench": (bench.commands, "bench.cli"), "twin": (twin.commands, "twin.cli")}


def cli(script: str, *args: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", SCRIPTS[script][1], *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def subcommands(script: str) -> dict[str, argparse.ArgumentParser]:
    parser = build_parser(SCRIPTS[script][0], script, "")
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_version_names_the_package_version(script):
    done = cli(script, "--version")
    assert done.returncode == 0
    assert f"tablebench) {bench.__version__}" in done.stdout
    assert bench.__version__ == twin.__version__


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_option_of_every_command_says_what_it_does(script):
    missing = []
    for name, parser in subcommands(script).items():
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            if not (action.help or "").strip():
                missing.append(f"{script} {name} {'/'.join(action.option_strings) or action.dest}")
            if action.option_strings and action.dest == "progress":
                assert isinstance(action, argparse.BooleanOptionalAction)
    assert not missing, f"options without help: {missing}"


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_command_has_progress_switches(script):
    for name, parser in subcommands(script).items():
        assert any("--no-progress" in a.option_strings for a in parser._actions), f"{script} {name}"


# Bad input to every command: exit 2 and one line naming what is wrong, never a traceback.
BAD = [
    ("bench", ["rtp", "no-such-submission.yaml"], "no-such-submission.yaml"),
    ("bench", ["run", "--rounds", "1", "--design", "no-such-design", "--out", "{tmp}/s"], "no-such-design"),
    ("bench", ["replay", "{tmp}/missing.jsonl"], "missing.jsonl"),
    ("bench", ["emulate", "--game", "lightning-dice", "--listen", "999.1.1.1:99999"], "999.1.1.1"),
    ("bench", ["features", "{tmp}/a-file/sub"], "a-file"),
    ("twin", ["drop", "no-such-tower"], "no-such-tower"),
    ("twin", ["spin", "no-such-wheel"], "no-such-wheel"),
    ("twin", ["validate", "standard", "--drops", "2"], "towers/standard or wheels/standard"),
    ("twin", ["edge", "wheels/standard", "--cutoff-s", "0,400"], "past the spin"),
    # Ray retries an unreachable head for minutes; the bench says so at once.
    ("twin", ["validate", "towers/standard", "--drops", "2", "--engine", "ray", "--ray-address", "127.0.0.1:1"],
     "cannot reach Ray at 127.0.0.1:1"),
]


@pytest.mark.parametrize("script,args,named", BAD, ids=[f"{s} {a[0]}" for s, a, _ in BAD])
def test_bad_input_is_exit_2_and_one_line(script, args, named, tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    done = cli(script, *[a.format(tmp=tmp_path) for a in args], cwd=tmp_path)
    assert done.returncode == Exit.BAD_INPUT, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and named in lines[0], done.stderr


def test_replaying_a_round_the_journal_does_not_hold_is_bad_input(tmp_path):
    ran = cli("bench", "run", "--rounds", "2", "--out", tmp_path / "s", "--seed", "3", "--no-probes")
    assert ran.returncode == Exit.OK, ran.stderr
    done = cli("bench", "replay", tmp_path / "s" / "session.jsonl", "--round", "99")
    assert done.returncode == Exit.BAD_INPUT and "round 99" in done.stderr
    wrong = cli("bench", "replay", tmp_path / "s" / "session.jsonl", "--round", "1",
                "--design", REPO / "fixtures" / "towers" / "narrow-tray.yaml")
    assert wrong.returncode == Exit.BAD_INPUT and "not the design the session ran with" in wrong.stderr


def test_no_banner_and_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path):
    done = cli("twin", "drop", "standard", "--count", "25", "--json")
    assert done.returncode == 0
    assert done.stderr == "", done.stderr                    # no banner, no bar
    forced = cli("twin", "drop", "standard", "--count", "25", "--progress")
    assert "drops" in forced.stderr and "it/s" in forced.stderr or "drop/s" in forced.stderr


def test_an_internal_error_is_one_line_with_the_traceback_in_a_file(monkeypatch, capsys):
    from tablebench_io.commandline import make_main

    def broken(args):
        raise ZeroDivisionError("a bug")
    main = make_main(twin.commands, "twin", "")
    monkeypatch.setattr("twin.commands.drop.run", broken)
    status = main(["drop", "standard"])
    err = capsys.readouterr().err
    assert status == Exit.INTERNAL
    assert err.count("\n") == 1 and "internal error: ZeroDivisionError: a bug" in err
    saved = Path(err.split("traceback in ")[1].rstrip(")\n"))
    assert "Traceback" in saved.read_text() and "ZeroDivisionError" in saved.read_text()
    saved.unlink()
