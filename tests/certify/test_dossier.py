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


@pytest.fixture(scope="module")
def compliant(tmp_path_factory, bench_key):
    folder = tmp_path_factory.mktemp("compliant")
    plan = tiny_plan(folder, sessions=1, rounds=6, runs=30)
    done = certify(plan, "--out", folder / "dossier", "--key", bench_key / "bench.key", "--json")
    return folder / "dossier", done, bench_key


def test_the_compliant_controller_passes_with_every_clause_a_row(compliant):
    dossier, done, _ = compliant
    assert done.returncode == Exit.OK, done.stderr
    lines = assert_json_lines(done.stdout, "certify")
    verdict = lines[-1]
    assert verdict["passed"] and verdict["state"] == "pass", verdict
    rows = {line["clause"]: line for line in lines if line["record"] == "clause"}
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
    assert "RNG battery" in rows["810a.5(c)(1)"]["reason"]
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
    (copy / "steps" / "02-scenarios" / "report.html").unlink()
    (copy / "steps" / "notes.txt").write_text("added later\n")
    tampered = certify("--verify", copy, "--pubkey", key / "bench.pub", "--json")
    assert tampered.returncode == Exit.VIOLATION
    lines = assert_json_lines(tampered.stdout, "certify")
    problems = "\n".join(line["problem"] for line in lines if line["record"] == "problem")
    assert "steps/02-scenarios/report.html: removed" in problems
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
