"""Hostile input files, generated: a design or a submission with a hostile
value in any field, an alias bomb, nesting thousands deep, binary, not UTF-8,
too big; given to every command that reads one. Each is exit 2 with one line
naming the file, never a traceback, in bounded time."""

import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from bench.cli import main as bench_main
from twin.cli import main as twin_main

ROOT = Path(__file__).resolve().parents[2]
LIMIT_S = 5.0          # CPU seconds a refusal may take

# (command line with {file}, the fixture whose fields are made hostile)
COMMANDS = {
    "twin drop": (twin_main, ["drop", "{file}"], "fixtures/towers/standard.yaml"),
    "twin spin": (twin_main, ["spin", "{file}"], "fixtures/wheels/standard.yaml"),
    "twin validate": (twin_main, ["validate", "{file}", "--drops", "10"], "fixtures/towers/standard.yaml"),
    "bench rtp": (bench_main, ["rtp", "{file}"], "fixtures/submissions/sic-bo-A.yaml"),
    "bench run --design": (bench_main, ["run", "--design", "{file}", "--rounds", "1", "--no-probes",
                                        "--out", "{out}"], "fixtures/towers/standard.yaml"),
    "bench run --submission": (bench_main, ["run", "--game", "sic-bo", "--submission", "{file}", "--rounds", "1",
                                            "--no-probes", "--out", "{out}"], "fixtures/submissions/sic-bo-A.yaml"),
}

HOSTILE_VALUES = [1e308, -1e308, float("nan"), 10 ** 400, "x", None, [], {}, [[[[1]]]] * 3,
                  list(range(5000))]

ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8))

RAW_FILES = {
    "alias bomb": ALIAS_BOMB.encode(),
    "deep nesting": b"a: " + b"[" * 20_000 + b"]" * 20_000 + b"\n",
    "binary": bytes(range(256)) * 8,
    "not utf-8": b"name: \xff\xfe tower\n",
    "too big": b"# " + b"x" * (2 << 20) + b"\n",
    "empty": b"",
    "a list": b"- 1\n- 2\n",
}


FREE_TEXT = {"name", "description"}      # any value reads as text there


def leaves(data, path=()):
    """Every value of a parsed YAML document that is not free text, as a path."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in FREE_TEXT:
                yield from leaves(value, path + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from leaves(value, path + (index,))
    else:
        yield path


def with_value(data, path, value):
    if not path:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = with_value(data[path[0]], path[1:], value)
    return copy


def call(main, argv, capsys):
    # CPU seconds of this process (the refusal runs in it, before anything starts):
    # a bound on the work a hostile file costs, which a loaded machine's wall clock is not.
    started = time.process_time()
    try:
        status = main(argv)
    except SystemExit as stop:         # argparse
        status = stop.code
    took = time.process_time() - started
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if line and not line.startswith("pybullet build time")]
    return status, said, took, err


def check(name, path, capsys, tmp_path):
    main, template, _ = COMMANDS[name]
    argv = [a.replace("{file}", str(path)).replace("{out}", str(tmp_path / "out")) for a in template]
    status, said, took, err = call(main, argv, capsys)
    assert "Traceback" not in err, err
    assert status == 2, (name, said)
    assert len(said) == 1 and path.name in said[0], said
    assert took < LIMIT_S, f"{name} took {took:.1f} s"


@pytest.mark.parametrize("kind", sorted(RAW_FILES))
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_hostile_file_is_refused_in_one_line(capsys, tmp_path, name, kind):
    path = tmp_path / "hostile.yaml"
    path.write_bytes(RAW_FILES[kind])
    check(name, path, capsys, tmp_path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_hostile_value_in_any_field_is_refused_in_one_line(capsys, tmp_path_factory, name, data):
    fixture = yaml.safe_load((ROOT / COMMANDS[name][2]).read_text())
    field = data.draw(st.sampled_from(sorted(leaves(fixture), key=str)), label="field")
    value = data.draw(st.sampled_from(HOSTILE_VALUES), label="value")
    tmp_path = tmp_path_factory.mktemp("f")
    path = tmp_path / "mutated.yaml"
    path.write_text(yaml.safe_dump(with_value(fixture, field, value)))
    check(name, path, capsys, tmp_path)


ROD = {"kind": "rod", "x_m": 0.0, "z_m": 0.14, "radius_m": 0.005}


@pytest.mark.parametrize("change,field", [
    (lambda d: d["body"].update(top_z_m=1e308), "body.top_z_m"),
    (lambda d: d["body"].update(top_z_m=3.5), "body.top_z_m"),
    (lambda d: d["body"].update(obstacles=[dict(ROD) for _ in range(5000)]), "body.obstacles"),
    (lambda d: d["tray"].update(width_m=1e9), "tray.width_m"),
    (lambda d: d["body"]["obstacles"][0].update(length_m=1e300), "body.obstacles[0].length_m"),
], ids=["top_z_m-1e308", "a-3.5-m-tower", "5000-rods", "a-1e9-m-tray", "a-1e300-m-ramp"])
def test_a_design_past_physical_bounds_is_refused_naming_the_field(capsys, tmp_path, change, field):
    design = yaml.safe_load((ROOT / "fixtures/towers/standard.yaml").read_text())
    change(design)
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(design))
    status, said, took, err = call(twin_main, ["drop", str(path)], capsys)
    assert status == 2 and len(said) == 1 and f"big.yaml: {field}:" in said[0], said
    assert took < LIMIT_S
