"""The dossier a lab files: against the compliant emulated controller and the
standard tower it passes with a row for every testable clause, none left
unexplained; against a misbehaving one it fails, marking exactly the clause
the misbehaviour breaks; sealed, a changed, added or removed file fails
--verify, naming it."""

from __future__ import annotations

import json
import shutil

import pytest

from bench.rules.regulation_text import CLAUSE_TEXT
from tablebench_io.commandline import Exit
from tests.certify.conftest import certify, records, tiny_plan
from tests.json_schemas import assert_json_lines


def _kind(step: str) -> str:
    """``03-session-standard-seed1`` -> ``session``."""
    return step.split("-")[1]


@pytest.fixture(scope="module")
def compliant(tmp_path_factory, bench_key):
    """The example plan's steps, each as small as still decides it: the link, the submission, the
    scenarios, one session, the campaigns, and 2,000 RNG values collected over the link."""
    folder = tmp_path_factory.mktemp("compliant")
    plan = tiny_plan(folder, conformance=True, sessions=1, rounds=6, runs=30, edge=20, frames=2, collect=2000)
    done = certify(plan, "--out", folder / "dossier", "--key", bench_key / "bench.key", "--json")
    return folder / "dossier", done, bench_key


def test_the_compliant_controller_passes_with_every_clause_a_row(compliant):
    from bench.certify.plan import load_plan
    from bench.certify.steps import plan_steps

    dossier, done, _ = compliant
    assert done.returncode == Exit.OK, done.stderr
    lines = assert_json_lines(done.stdout, "certify")
    verdict = lines[-1]
    assert verdict["passed"] and verdict["state"] == "pass", verdict
    assert set(verdict["counts"]) == {"pass", "not exercised"}, verdict["counts"]      # no caution, none failed
    example = {_kind(s.name) for s in plan_steps(load_plan("lightning-dice-standard"), rng_available=True)}
    ran = [line for line in lines if line["record"] == "step"]
    assert {_kind(s["step"]) for s in ran} == example and all(s["status"] == "pass" for s in ran), ran
    rows = {line["clause"]: line for line in lines if line["record"] == "clause"}
    # the emulated controller's RNG, collected over a real link as a device's would be, passes every test of (c)
    assert all(rows[f"810a.5(c)({n})"]["state"] == "pass" for n in range(1, 16))
    assert all(rows[f"810a.5(a)({n})"]["state"] == "pass" for n in (1, 2, 3))
    assert (next(dossier.glob("steps/*-rng")) / "collection" / "collection.jsonl").is_file()
    # every clause of Pennsylvania's texts the bench quotes is a row, and so is the link layer
    assert {c for c in CLAUSE_TEXT if c.startswith(("625b.2", "625a.6", "617c.3"))} <= set(rows)
    assert "protocol" in rows and "810a.5(c)(13)" in rows
    assert not [c for c, row in rows.items() if row["state"] == "unexplained"]
    assert all(row.get("reason") for row in rows.values() if row["state"] == "not exercised")
    assert rows["625b.2(d)(5)"]["state"] == "pass"
    steps = {e["step"] for e in rows["625b.2(d)(5)"]["exercised_by"]}
    assert any(s.endswith("scenarios") for s in steps) and any("session" in s for s in steps)
    assert any("validate" in e["step"] for e in rows["625b.2(c)(3)"]["exercised_by"])
    # the journal lines a row points to are rounds of a journal in the dossier
    session = next(e for e in rows["625b.2(d)(6)"]["exercised_by"] if "session" in e["step"])
    journal = (dossier / session["journal"]).read_text().splitlines()
    assert all(json.loads(journal[n - 1])["kind"] == "round" for n in session["lines"])
    # clauses another game's regulation holds are rows too, saying so
    assert "Lightning Roulette" in rows["617c.3(g)(4)"]["reason"]
    assert "source code" in rows["810a.5(a)(4)"]["reason"]
    index = (dossier / "index.html").read_text()
    assert index.index('id="verdict"') < index.index('id="matrix"')
    assert 'data-clause="625b.2(d)(5)" data-state="pass"' in index
    assert verdict["plan_sha256"] in index


def test_the_sealed_dossier_verifies_and_names_what_was_changed_added_or_removed(compliant, tmp_path):
    dossier, done, key = compliant
    assert done.returncode == Exit.OK, done.stderr
    intact = certify("--verify", dossier, "--pubkey", key / "bench.pub")
    assert intact.returncode == Exit.OK, intact.stdout + intact.stderr
    assert "intact" in intact.stdout and "sealed" in intact.stdout
    copy = tmp_path / "copy"
    shutil.copytree(dossier, copy)
    session = next(copy.glob("steps/*session*/session"))
    journal = session / "session.jsonl"
    journal.write_text(journal.read_text().replace('"probe":', '"probe": ', 1))   # one byte in one round
    scenarios = next(copy.glob("steps/*-scenarios")).relative_to(copy).as_posix()
    (copy / scenarios / "report.html").unlink()
    (copy / "steps" / "notes.txt").write_text("added later\n")
    tampered = certify("--verify", copy, "--pubkey", key / "bench.pub", "--json")
    assert tampered.returncode == Exit.VIOLATION
    lines = assert_json_lines(tampered.stdout, "certify")
    problems = "\n".join(line["problem"] for line in lines if line["record"] == "problem")
    assert f"{scenarios}/report.html: removed" in problems
    assert "steps/notes.txt: added" in problems
    assert f"{journal.relative_to(copy).as_posix()}: changed" in problems
    assert "does not match its hash" in problems             # the journal's own chain says where
    # signed by another key: refused whatever the files say
    other = certify("--verify", dossier, "--pubkey", "sha256:" + "0" * 64)
    assert other.returncode == Exit.VIOLATION and "not the trusted" in other.stdout


def test_a_misbehaving_controller_fails_on_exactly_the_clause_it_breaks(tmp_path):
    plan = tiny_plan(tmp_path, misbehave="pay-on-no-roll", sessions=1, rounds=4)
    done = certify(plan, "--out", tmp_path / "dossier", "--json")
    assert done.returncode == Exit.VIOLATION, done.stderr
    lines = assert_json_lines(done.stdout, "certify")
    broken = {line["clause"] for line in lines if line["record"] == "clause" and line["state"] == "fail"}
    assert broken == {"625b.2(d)(5)"}                        # pays on a no roll: 625b.2(d)(5) and nothing else
    row = next(line for line in lines if line.get("clause") == "625b.2(d)(5)")
    session = next(e for e in row["exercised_by"] if "session" in e["step"] and e["verdict"] == "fail")
    journal = (tmp_path / "dossier" / session["journal"]).read_text().splitlines()
    assert session["lines"] and all("625b.2(d)(5)" in journal[n - 1] for n in session["lines"])
    assert not lines[-1]["passed"] and "625b.2(d)(5)" in " ".join(lines[-1]["reasons"])


def test_a_misbehaving_rng_fails_only_clauses_of_810a5_and_only_on_its_raw_output(tmp_path):
    """stuck-low-bit (bench/emulator/rng_misbehaviours.py): bit 0 of every raw word is 0. Every round is
    lawful, so the session passes; the raw words collected over the link break the battery (810a.5),
    and the scaled values, which read the high bits, do not."""
    plan = tiny_plan(tmp_path, misbehave="stuck-low-bit", scenarios=False, sessions=1, rounds=4, collect=1000)
    done = certify(plan, "--out", tmp_path / "dossier", "--json")
    assert done.returncode == Exit.VIOLATION, done.stderr
    lines = assert_json_lines(done.stdout, "certify")
    rows = {line["clause"]: line for line in lines if line["record"] == "clause"}
    broken = {clause for clause, row in rows.items() if row["state"] == "fail"}
    assert {"810a.5(c)(1)", "810a.5(a)(3)"} <= broken and all(c.startswith("810a.5") for c in broken), broken
    assert all(e["step"].endswith("-rng") for c in broken for e in rows[c]["exercised_by"])
    assert rows["625b.2(d)(5)"]["state"] == "pass"          # the per-round rules hold: the session passes
    rng = next((tmp_path / "dossier").glob("steps/*-rng")) / "rng.jsonl"
    failed = [t for t in map(json.loads, rng.read_text().splitlines())
              if t.get("record") == "test" and t.get("family") == "rng" and t.get("family_passed") is False]
    assert failed and all(t["source"].startswith("raw(") for t in failed), [t["source"] for t in failed]
    assert {t["clause"] for t in failed} <= broken


def test_a_link_that_fails_conformance_stops_the_rest(tmp_path):
    plan = tiny_plan(tmp_path, misbehave="ignores-crc", conformance=True)
    done = certify(plan, "--out", tmp_path / "dossier", "--json")
    assert done.returncode == Exit.VIOLATION, done.stderr
    lines = records(done.stdout)
    steps = [line for line in lines if line["record"] == "step"]
    assert [s["step"] for s in steps] == ["01-conformance"] and steps[0]["status"] == "fail"
    rows = {line["clause"]: line for line in lines if line["record"] == "clause"}
    assert rows["protocol"]["state"] == "fail"
    assert rows["625b.2(d)(5)"]["state"] == "not exercised" and "not reached" in rows["625b.2(d)(5)"]["reason"]
    assert "conformance" in lines[-1]["headline"]
    assert not (tmp_path / "dossier" / "steps" / "02-submission").exists()
