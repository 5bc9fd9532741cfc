"""Hostile input, generated: whatever bytes or JSON come in, every command
answers exit 2 (or, for a journal that reads but does not verify, 1) with
one line naming the input, never a traceback, in bounded time."""

import io
import json
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bench.cli import main as bench_main

LIMIT_S = 5.0     # CPU seconds per command: a hostile input must not make the bench work for minutes

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)

# Lines built to hit a limit: deep nesting, long integers, huge numbers, stray bytes.
hostile_lines = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.integers(min_value=1000, max_value=60_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1000, max_value=60_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.integers(min_value=31, max_value=6000).map(
        lambda n: b'{"game":"sic-bo","paytable":"A","dice":[1,2,3],"wagers":[{"id":"w","bet":"small","stake":'
                  + b"9" * n + b"}]}"),
    st.sampled_from([b'{"game":"sic-bo","dice":[1,2,3],"wagers":[{"id":"w","bet":"small","stake":1e308}]}',
                     b'{"game":"sic-bo","dice":[1e999,2,3],"wagers":[]}', b"NaN", b'{"game":[]}', b"\xff\xfe\x00"]),
)


def call(argv, capsys, stdin: bytes | None = None):
    """Run a bench command in this process; (status, stderr lines, CPU seconds).
    CPU seconds of this process (the command runs in it): a bound on the work a
    hostile input costs, which a loaded machine's wall clock is not."""
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")
    started = time.process_time()
    try:
        status = bench_main(argv)
    finally:
        sys.stdin = saved
    took = time.process_time() - started
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if line and not line.startswith("pybullet build time")]
    assert "Traceback" not in captured.err
    return status, said, took


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=hostile_lines)
def test_settle_refuses_any_bad_line_in_one_line(capsys, line):
    status, said, took = call(["settle"], capsys, stdin=line.replace(b"\n", b" ") + b"\n")
    assert took < LIMIT_S
    if status == 0:          # generated JSON that happens to be a valid round
        return
    assert status == 2 and len(said) == 1 and said[0].startswith("bench settle: line 1: ")


HEADER = json.dumps({"hash": "0" * 64, "kind": "session", "seq": 0, "prev": "0" * 64, "game": "sic-bo"}).encode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=hostile_lines, rest=st.lists(hostile_lines, max_size=3), with_header=st.booleans())
def test_replay_refuses_or_fails_any_bad_journal_without_a_traceback(capsys, tmp_path_factory, first, rest,
                                                                       with_header):
    path = tmp_path_factory.mktemp("j") / "session.jsonl"
    lines = ([HEADER] if with_header else []) + [first] + rest
    path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n")
    status, said, took = call(["replay", str(path)], capsys)
    assert took < LIMIT_S
    assert status in (1, 2)
    if status == 2:
        assert len(said) == 1 and str(path) in said[0]
    else:
        assert not said      # the verdict (FAIL and why) is on stdout


@pytest.mark.parametrize("line,told", [
    (b'{"game":"sic-bo","paytable":"A","dice":[1,2,3],"wagers":[{"id":"w","bet":"small","stake":'
     + b"5" * 5000 + b"}]}", "5000 digits"),
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
])
def test_the_reported_cases(capsys, line, told):
    status, said, took = call(["settle"], capsys, stdin=line + b"\n")
    assert status == 2 and len(said) == 1 and told in said[0] and took < LIMIT_S


@pytest.mark.parametrize("argv", [["drop", "fixtures/towers/standard.yaml", "--gif", "{missing}/drop.gif"],
                                  ["spin", "fixtures/wheels/standard.yaml", "--png", "{missing}/spin.png"]])
def test_a_picture_into_a_missing_folder_is_refused_before_the_physics_runs(capsys, tmp_path, argv):
    from twin.cli import main as twin_main
    argv = [a.replace("{missing}", str(tmp_path / "missing")) for a in argv]
    with pytest.raises(SystemExit) as stopped:
        twin_main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "does not exist" in err.splitlines()[-1] and "Traceback" not in err
