"""One reader for every YAML input (designs, submissions, game files): the
same refusals everywhere, each one line naming the file, in bounded time."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.errors import RulesError
from bench.rules.submission import load_submission
from tablebench_io import MAX_BYTES, LocatedError, read_yaml
from twin.errors import DesignError
from twin.tower.design import load_design as load_tower
from twin.wheel.design import load_design as load_wheel

ROOT = Path(__file__).resolve().parents[2]


def billion_laughs() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    return "\n".join(lines) + "\n"


HOSTILE = {
    "too large": (lambda p: p.write_bytes(b"a: " + b"x" * MAX_BYTES + b"\n"), "larger than"),
    "not UTF-8": (lambda p: p.write_bytes(b"name: caf\xe9\n"), "not UTF-8"),
    "too deep": (lambda p: p.write_text("a: " + "[" * 200 + "]" * 200 + "\n"), "deeper than"),
    "alias bomb": (lambda p: p.write_text(billion_laughs()), "aliases"),
}


@pytest.mark.parametrize("loader, error", [(load_tower, DesignError), (load_wheel, DesignError),
                                           (load_submission, RulesError)])
@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_a_hostile_file_is_refused_fast_naming_it(tmp_path, loader, error, hostile):
    write, words = HOSTILE[hostile]
    path = tmp_path / "hostile.yaml"
    write(path)
    start = time.process_time()      # CPU seconds: the work the file costs, not a loaded machine's wall clock
    with pytest.raises(error) as caught:
        loader(path)
    assert time.process_time() - start < 1.0
    assert isinstance(caught.value, LocatedError)
    assert str(path) in str(caught.value) and words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_billion_laughs_file_is_small_and_fails_from_the_command_line(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(billion_laughs())
    assert path.stat().st_size < 2048
    proc = subprocess.run([sys.executable, "-m", "bench.cli", "rtp", str(path)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "aliases" in lines[0], proc.stderr


def test_the_wheel_refuses_a_misspelt_field_as_the_tower_does(tmp_path):
    text = (ROOT / "fixtures/wheels/standard.yaml").read_text()
    assert "  radius_m:" in text
    path = tmp_path / "typo.yaml"
    path.write_text(text.replace("  radius_m:", "  radus_m:", 1))
    with pytest.raises(DesignError) as caught:
        load_wheel(path)
    assert caught.value.field == "ball.radus_m"
    assert "did you mean 'radius_m'" in str(caught.value)


def test_an_extra_field_in_a_wheel_section_is_refused_with_a_suggestion(tmp_path):
    text = (ROOT / "fixtures/wheels/standard.yaml").read_text()
    path = tmp_path / "extra.yaml"
    path.write_text(text.replace("tilt:\n", "tilt:\n  angle_dg: 1.0\n", 1))
    with pytest.raises(DesignError) as caught:
        load_wheel(path)
    assert caught.value.field == "tilt.angle_dg"
    assert "did you mean 'angle_deg'" in str(caught.value)


def test_a_misspelt_submission_field_is_refused_with_a_suggestion(tmp_path):
    path = tmp_path / "sub.yaml"
    path.write_text("game: sic-bo\npaytable: A\noptons: {}\n")
    with pytest.raises(RulesError) as caught:
        load_submission(path)
    assert caught.value.field == "optons"
    assert "did you mean 'options'" in str(caught.value)


def test_every_located_error_reads_the_same_way():
    assert str(read_yaml.__defaults__[0]("boom", file="f.yaml", field="a.b", clause="625b.2(d)")) == \
        "f.yaml: a.b: boom (clause 625b.2(d))"
    moved = DesignError("too small", field="radius_m").located(file="w.yaml", field="ball")
    assert isinstance(moved, DesignError) and str(moved) == "w.yaml: ball.radius_m: too small"
    moved = RulesError("no", field="x", clause="c").located(file="s.yaml")
    assert isinstance(moved, RulesError) and str(moved) == "s.yaml: x: no (clause c)"
