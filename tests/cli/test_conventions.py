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


# The commands that draw a progress bar; the others draw none and do not offer the switch (issue 41).
DRAWS_PROGRESS = {"bench run", "bench recognize", "twin drop", "twin spin", "twin frames", "twin validate",
                  "twin edge"}
DRAWS_NOTHING = {"bench adapters", "bench conformance", "bench docs", "bench emulate", "bench features",
                 "bench key", "bench monitor", "bench replay", "bench rtp", "bench settle"}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_progress_switches_only_where_a_bar_is_drawn(script):
    for name, parser in subcommands(script).items():
        offered = any("--no-progress" in a.option_strings for a in parser._actions)
        if f"{script} {name}" in DRAWS_PROGRESS:
            assert offered, f"{script} {name} draws a bar: it takes --progress/--no-progress"
        elif f"{script} {name}" in DRAWS_NOTHING:
            assert not offered, f"{script} {name} draws no bar: --progress would promise one"


def test_progress_asked_of_a_command_that_draws_none_is_refused():
    done = cli("bench", "rtp", "sic-bo-A", "--progress")
    assert done.returncode == Exit.BAD_INPUT and "unrecognized arguments: --progress" in done.stderr


def every_command() -> dict[str, argparse.ArgumentParser]:
    """Every command a user runs, nested ones (bench key show) by their whole name."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found[name] = parser
        for child, sub in (subs[0].choices.items() if subs else ()):
            walk(f"{name} {child}", sub)

    for script in SCRIPTS:
        for name, parser in subcommands(script).items():
            walk(f"{script} {name}", parser)
    return found


def test_every_command_help_states_its_exit_statuses():
    unsaid = [name for name, parser in every_command().items()
              if "Exit status" not in " ".join(parser.format_help().split())]    # argparse wraps the words
    assert not unsaid, f"--help without its exit statuses: {unsaid}"


# Bad input to every command: exit 2 and one line naming what is wrong, never a traceback.
BAD = [
    ("bench", ["rtp", "no-such-submission.yaml"], "no-such-submission.yaml"),
    ("bench", ["run", "--rounds", "1", "--design", "no-such-design", "--out", "{tmp}/s"], "no-such-design"),
    ("bench", ["replay", "{tmp}/missing.jsonl"], "missing.jsonl"),
    ("bench", ["emulate", "--game", "lightning-dice", "--listen", "999.1.1.1:99999"], "999.1.1.1"),
    ("bench", ["features", "{tmp}/a-file/sub"], "a-file"),
    ("twin", ["drop", "no-such-tower"], "no-such-tower"),
    ("twin", ["spin", "no-such-wheel"], "no-such-wheel"),
    ("twin", ["validate", "standard"], "towers/standard or wheels/standard"),      # no --drops or --spins to tell
    ("twin", ["drop", "{tmp}/bad-syntax.yaml"], "at line 2, column 4"),          # one line, not PyYAML's dump
    ("twin", ["drop", "{tmp}/no-obstacles.yaml"], "body.obstacles"),
    ("twin", ["edge", "wheels/standard", "--cutoff-s", "0,400"], "past the spin"),
    # Ray retries an unreachable head for minutes; the bench says so at once.
    ("twin", ["validate", "towers/standard", "--drops", "2", "--engine", "ray", "--ray-address", "127.0.0.1:1"],
     "cannot reach Ray at 127.0.0.1:1"),
]


@pytest.mark.parametrize("script,args,named", BAD, ids=[f"{s} {a[0]}" for s, a, _ in BAD])
def test_bad_input_is_exit_2_and_one_line(script, args, named, tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "bad-syntax.yaml").write_text("dice: [1, 2\nfoo: : bar\n")
    (tmp_path / "no-obstacles.yaml").write_text(tower_without_obstacles())
    done = cli(script, *[a.format(tmp=tmp_path) for a in args], cwd=tmp_path)
    assert done.returncode == Exit.BAD_INPUT, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and named in lines[0], done.stderr


def tower_without_obstacles() -> str:
    """The shipped straight chute without its line saying it breaks 625b.2(c)(3) on purpose."""
    text = (REPO / "fixtures" / "towers" / "straight-chute.yaml").read_text()
    assert "breaks:" in text
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("breaks:"))


def test_a_yaml_syntax_error_is_one_line_naming_file_line_and_column(tmp_path):
    bad = tmp_path / "design.yaml"
    bad.write_text("dice: [1, 2\nfoo: : bar\n")
    done = cli("twin", "drop", bad)
    assert done.returncode == Exit.BAD_INPUT and "Traceback" not in done.stderr
    assert done.stderr.strip() == (f"twin drop: {bad}: is not valid YAML at line 2, column 4: expected ',' or ']', "
                                   "but got ':' (while parsing a flow sequence from line 1, column 7)")


def test_a_tower_without_obstacles_is_refused_naming_field_and_clause(tmp_path):
    from twin.errors import DesignError
    from twin.tower import load_design
    design = tmp_path / "chute.yaml"
    design.write_text(tower_without_obstacles())
    with pytest.raises(DesignError) as refused:
        load_design(design)
    assert (refused.value.file, refused.value.field, refused.value.clause) == (str(design), "body.obstacles",
                                                                              "625b.2(c)(3)")
    assert load_design("straight-chute").body.obstacles == ()       # the counter-example says breaks: [625b.2(c)(3)]
    design.write_text(tower_without_obstacles().replace("name: straight-chute", "breaks: [625b.2(d)(5)]\nname: x"))
    with pytest.raises(DesignError, match="breaks"):
        load_design(design)


def test_a_shipped_name_is_resolved_by_the_kind_the_command_takes():
    """twin drop standard is the tower; so is twin validate standard --drops N (and --spins N the wheel)."""
    from twin.commands._runs import design_of
    assert design_of("standard", "tower")[1] == "tower" and design_of("standard", "wheel")[1] == "wheel"
    assert design_of("towers/standard", "wheel")[1] == "tower"     # named with its kind: that kind, then judged
    done = cli("twin", "validate", "towers/standard", "--spins", "2")
    assert done.returncode == Exit.BAD_INPUT and "is a tower design: use --drops" in done.stderr


def test_the_adapter_template_says_to_install_the_folder_not_a_package_name(tmp_path):
    done = cli("bench", "adapters", "--template", "my-adapter", cwd=tmp_path)
    assert done.returncode == Exit.OK, done.stderr
    assert "pip install ./my-adapter " in done.stdout and "pip install my-adapter" not in done.stdout


def test_an_unknown_misbehaviour_under_pytest_is_a_usage_error_before_collection(tmp_path):
    from bench.commands.features import shipped_files
    for name, content in shipped_files():
        (tmp_path / name).write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "--controller",
                           "emulated:no-such-breach", "test_lightning_dice_on_controller.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "unknown misbehaviour 'no-such-breach'" in lines[0] and "usage error" in lines[0]


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


def test_the_readmes_commands_name_shipped_files_as_a_wheel_install_finds_them():
    """README's fixtures/... paths exist only in a clone; a wheel's user names shipped files by name."""
    import re
    import shlex

    from twin.commands._runs import design_of
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text[text.index("## Commands"):]
    block = block[block.index("```sh"):block.index("```\n", block.index("```sh") + 5)]
    assert "fixtures/" not in block
    takes = {"drop": ("tower",), "spin": ("wheel",)}
    named = 0
    for line in block.splitlines():
        words = shlex.split(line.partition("#")[0])
        if words[:1] == ["twin"] and words[1] in ("drop", "spin", "validate", "edge"):
            kinds = takes.get(words[1]) or (("tower",) if "--drops" in words else ("wheel",) if "--spins" in words
                                            else ())
            path, kind = design_of(words[2], *kinds)
            assert Path(path).is_file() and (not kinds or kind in kinds), line
            named += 1
        for option, kinds in (("--submission", ("submission",)), ("--design", ("tower", "wheel"))):
            given = words[words.index(option) + 1] if option in words else ""
            if re.fullmatch(r"[a-z0-9-]+", given):          # a bare name (not the user's rules.yaml, drops.jsonl)
                import tablebench_fixtures
                assert Path(tablebench_fixtures.resolve(given, *kinds)).is_file(), line
                named += 1
    assert named >= 9
