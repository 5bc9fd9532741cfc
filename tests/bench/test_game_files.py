"""Game files: a variant of a built-in game in YAML plays through `bench run`,
`bench emulate` (its child), `bench rtp` and `bench replay` without code, and
the oracle judges it by the file's numbers."""

import json
import hashlib
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from bench.errors import RulesError
from bench.journal.chain import iter_records
from bench.rules.rtp_table import rtp_rows
from bench.rules.variant import load_game_file, load_rules_file

ROOT = Path(__file__).resolve().parents[2]
GAME_FILES = sorted((ROOT / "fixtures" / "games").glob("*.yaml"))
# A misbehaviour of each variant's base game the oracle must catch under the variant's rules.
BREACH = {"lightning-dice-1to3": ("five-lucky-numbers", "625b.2(d)(2)"),
          "sic-bo-studio": ("small-wins-on-triple", "625a.3(6)")}


def bench(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_at_least_two_game_files_are_shipped():
    assert {p.stem for p in GAME_FILES} >= set(BREACH)


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_each_game_file_plays_five_rounds_to_a_pass_and_replays(tmp_path, path):
    out = tmp_path / "out"
    proc = bench("run", "--game", path, "--rounds", 5, "--seed", 11, "--out", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["game"] == path.stem and summary["rounds"] == 5 and summary["passed"]
    header = next(record for _, record, _ in iter_records(out / "session.jsonl") if record)
    assert header["game"] == path.stem and header["game_file_text"] == path.read_text()
    assert len(header["game_file_sha256"]) == 64
    # The journal alone replays it: the game file's text is in it.
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    replayed = bench("replay", (out / "session.jsonl").resolve(), cwd=moved)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "5 rounds re-verified, 0 violations" in replayed.stdout


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_the_oracle_fails_a_misbehaviour_under_each_variant(tmp_path, path):
    name, clause = BREACH[path.stem]
    out = tmp_path / "out"
    # The fair plant, and rounds enough for the staged plan to reach every triple (bench.play.coverage).
    proc = bench("run", "--game", path, "--rounds", 30, "--plant", "dice", "--seed", 11, "--out", out,
                 "--misbehave", name)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert any(c.startswith(clause) for c in summary["violations_by_clause"]), summary["violations_by_clause"]


def test_the_variant_settles_by_the_file_s_numbers():
    sic_bo = load_game_file(ROOT / "fixtures/games/sic-bo-studio.yaml")
    rules = load_rules_file(ROOT / "fixtures/games/sic-bo-studio.yaml")
    rows = {row.bet: row for row in rtp_rows(rules)}
    assert rows["triple:3"].rtp == Fraction(181, 216)       # 180 to 1 on 1/216
    assert rows["double:2"].win_probability == Fraction(15, 216)   # a triple does not win a double
    assert "combo:1-2" not in rows
    with pytest.raises(RulesError, match="does not offer"):
        sic_bo.check_bet("combo:1-2", rules)
    lightning = load_rules_file(ROOT / "fixtures/games/lightning-dice-1to3.yaml")
    assert [k for k, _ in lightning.lucky.count] == [1, 2, 3]


@pytest.mark.parametrize("change, field, words, clause", [
    ("lucky_count: [0, 3]", "lucky_count", "1 <= fewest", "625b.2(d)(2)"),
    ("paytable: {totl:10: 5}", "paytable.totl:10", "did you mean 'total:10'", "625b.2(f)"),
    ("paytable: {total:10: 0}", "paytable.total:10", "from 1 to", "625b.2(f)"),
    ("enhanced_ranges: {total:10: [50, 9]}", "enhanced_ranges.total:10", "above highest", "625b.2(g)(3)"),
    ("lucky_cont: [1, 3]", "lucky_cont", "did you mean 'lucky_count'", None),
    ("options: {no_roll: some-dice}", "options.no_roll", "any-die, all-dice", "625b.2(d)(5)"),
    ("bets: [low, total:19]", "bets[1]", "total:19", "625b.2(e)(5)"),
    ("phases: {betting: -1}", "phases.betting", "must be >", None),
    ("enhanced_ranges: {total:4: [49, 60]}", "lucky", "give 'lucky'", "625b.2(g)(3)"),
])
def test_a_bad_game_file_is_refused_naming_field_and_clause(tmp_path, change, field, words, clause):
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: bad-variant\nbase: lightning-dice\n{change}\n")
    with pytest.raises(RulesError) as caught:
        load_game_file(path)
    err = caught.value
    assert err.file == str(path) and err.field.startswith(field) and words in err.message, str(err)
    assert err.clause == clause, str(err)


def test_a_bad_game_file_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad-base\nbase: roulette\n")
    for args in (("run", "--game", path, "--rounds", 1, "--out", tmp_path / "o"), ("rtp", path)):
        proc = bench(*args)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and str(path) in proc.stderr and "base" in proc.stderr


def test_pytest_judges_a_controller_running_a_game_file_by_its_base_game_s_scenarios(tmp_path):
    from bench.emulator.process import emulated_controller
    path = ROOT / "fixtures/games/sic-bo-studio.yaml"
    with emulated_controller(str(path), seed=3, listen="127.0.0.1:0") as url:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "features/test_sic_bo_on_controller.py", "--controller", url,
             "--controller-game", str(path), "-q", "-p", "no:cacheprovider", "--tb=no", "-rf",
             f"--controller-log={tmp_path / 'wire'}"], capture_output=True, text=True, timeout=300, cwd=ROOT,
            env={**os.environ, "COLUMNS": "1000"})     # the summary lines whole
    assert proc.returncode == 1, proc.stdout[-3000:]
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAILED")]
    # Exactly where the studio's paytable departs from 625a.6(a): triples, any triple, totals 4 and 17, combos.
    assert failed and all(any(word in line for word in ("triple", "total:4", "total:17", "combination", "combo"))
                          for line in failed), failed
    assert " passed" in proc.stdout
    # The run's journal carries the game file, so that it replays without it.
    (journal,) = (tmp_path / "wire").glob("journal-*.jsonl")
    header = json.loads(journal.read_text().splitlines()[0])
    assert header["game_file_text"] == path.read_text()
    assert header["game_file_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
