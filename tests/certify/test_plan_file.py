"""A certification plan is an input like any other: a wrong one is refused
before anything runs, in one line naming the file, the field and (where a
regulation limits it) the clause, exit status 2, never a traceback; the
commented plan --init writes is the shipped example and runs as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.certify.plan import load_plan, load_profile
from bench.cli import main as bench_main
from tablebench_io.commandline import Exit

GOOD = """\
plan: 1
controller: {url: emulated}
game: lightning-dice
submission: lightning-dice
designs: [standard]
jurisdiction: pennsylvania
"""


def call(argv, capsys):
    status = bench_main([str(a) for a in argv])
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if line and not line.startswith("pybullet build time")]
    assert "Traceback" not in captured.err
    return status, said, captured.out


def refused(tmp_path: Path, capsys, text: str | bytes, named: Path | None = None) -> str:
    """The one line a bad plan gets; it names ``named`` (default: the plan)."""
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(text if isinstance(text, bytes) else text.encode())
    status, said, _ = call(["certify", plan, "--out", tmp_path / "dossier"], capsys)
    assert status == Exit.BAD_INPUT, said
    assert len(said) == 1, said
    assert str(named or plan) in said[0], said
    assert not (tmp_path / "dossier").exists(), "a refused plan must not start a dossier"
    return said[0]


def test_a_misspelt_field_is_named_with_the_field_it_meant(tmp_path, capsys):
    line = refused(tmp_path, capsys, GOOD + "sessions: {count: 1, rouns: 5}\n")
    assert "sessions.rouns" in line and "did you mean" in line, line


@pytest.mark.parametrize("extra, field", [
    ("sessions: {rounds: 0}\n", "sessions.rounds"),
    ("sessions: {count: 1000}\n", "sessions.count"),
    ("validate: {runs: -5}\n", "validate.runs"),
    ("campaigns: {engine: spark}\n", "campaigns.engine"),
    ("campaigns: {workers: 1.5}\n", "campaigns.workers"),
    ("conformance: {protocol: 3}\n", "conformance.protocol"),
    ("conformance: {protocol: [2, '1']}\n", "conformance.protocol"),
    ("conformance: {protocol: []}\n", "conformance.protocol"),
], ids=["no-rounds", "too-many-sessions", "negative-runs", "unknown-engine", "fractional-workers",
        "unknown-protocol", "protocol-as-text", "no-protocol"])
def test_a_count_out_of_range_names_its_field(tmp_path, capsys, extra, field):
    assert field in refused(tmp_path, capsys, GOOD + extra)


def test_conformance_checks_the_versions_the_plan_names_and_every_one_unless_told(tmp_path):
    from bench.certify.steps import plan_steps

    def conformance_command(extra: str) -> list[str]:
        plan = tmp_path / "plan.yaml"
        plan.write_text(GOOD + extra)
        step = next(s for s in plan_steps(load_plan(str(plan)), rng_available=False) if s.name.endswith("conformance"))
        return step.commands[0][0]
    assert not [a for a in conformance_command("") if a.startswith("--protocol")]
    assert [a for a in conformance_command("conformance: {protocol: [2, 1, 2]}\n") if a.startswith("--protocol")] \
        == ["--protocol=1", "--protocol=2"]
    assert [a for a in conformance_command("conformance: {protocol: 2}\n") if a.startswith("--protocol")] \
        == ["--protocol=2"]


def test_a_misbehaving_device_is_refused(tmp_path, capsys):
    line = refused(tmp_path, capsys, GOOD.replace("{url: emulated}", "{url: /dev/ttyUSB0, misbehave: pay-on-no-roll}"))
    assert "controller.misbehave" in line


def test_an_unknown_misbehaviour_is_named(tmp_path, capsys):
    line = refused(tmp_path, capsys, GOOD.replace("{url: emulated}", "{url: emulated, misbehave: pay-on-no-rol}"))
    assert "controller.misbehave" in line and "pay-on-no-roll" in line, line


def test_a_submission_for_another_game_is_refused(tmp_path, capsys):
    line = refused(tmp_path, capsys, GOOD.replace("submission: lightning-dice", "submission: sic-bo-A"))
    assert "submission" in line and "sic-bo" in line


def test_a_wheel_for_a_dice_game_is_refused(tmp_path, capsys):
    wheel = Path(__file__).resolve().parents[2] / "fixtures" / "wheels" / "tilted.yaml"
    line = refused(tmp_path, capsys, GOOD.replace("[standard]", f"[{wheel}]"))
    assert "designs[0]" in line and "wheel" in line


def test_a_submission_outside_its_clause_names_the_clause(tmp_path, capsys):
    shipped = Path(__file__).resolve().parents[2] / "fixtures" / "submissions" / "lightning-dice.yaml"
    rules = tmp_path / "rules.yaml"
    rules.write_text(shipped.read_text().replace("total:3: {249: 0.469,", "total:3: {1249: 0.469,"))
    line = refused(tmp_path, capsys, GOOD.replace("submission: lightning-dice", f"submission: {rules}"))
    assert str(rules) in line and "625b.2(g)(3)" in line, line


def test_a_profile_that_does_not_regulate_the_game_is_refused(tmp_path, capsys):
    line = refused(tmp_path, capsys, GOOD.replace("pennsylvania", "south-dakota"))
    assert "jurisdiction" in line and "20:18:33:14" in line, line


def test_hostile_bytes_are_one_line(tmp_path, capsys):
    refused(tmp_path, capsys, b"\xff\xfe\x00plan: [" + b"[" * 5000)


def test_a_profile_confidence_out_of_range_is_named(tmp_path, capsys):
    profile = tmp_path / "jurisdiction.yaml"
    profile.write_text("profile: 1\ntitle: X\nregulations: ['625b.2']\nconfidence: {fairness: 0.99, rng: 1.5}\n")
    line = refused(tmp_path, capsys, GOOD.replace("pennsylvania", str(profile)), named=profile)
    assert "confidence.rng" in line, line


def test_a_jurisdiction_is_data(tmp_path):
    pennsylvania, south_dakota = load_profile("pennsylvania"), load_profile("south-dakota")
    assert pennsylvania.rng_confidence == 0.95          # 810a.5(c): "the desired confidence level of 95%"
    assert south_dakota.rng_confidence == 0.99
    assert "625b.2" in pennsylvania.sections and "625b.2" not in south_dakota.sections
    assert "810a.5(c)(13)" in pennsylvania.extra_clauses


def test_init_writes_the_commented_example_and_refuses_to_overwrite(tmp_path, capsys):
    target = tmp_path / "plan.yaml"
    status, _, out = call(["certify", "--init", target], capsys)
    assert status == Exit.OK and str(target) in out
    text = target.read_text()
    assert text.count("#") > 20, "a commented plan"
    plan = load_plan(str(target))
    assert (plan.game, plan.profile.name, plan.controller.url) == ("lightning-dice", "pennsylvania", "emulated")
    assert plan.designs[0].endswith("standard.yaml")
    status, said, _ = call(["certify", "--init", target], capsys)
    assert status == Exit.BAD_INPUT and "already exists" in said[0]
    assert target.read_text() == text
