"""bench rng --collect over a real link to the emulated controller, and
bench rng on what it collected: the compliant controller's raw and scaled
output passes the battery (--json valid against schemas/rng-1), a defect
only the raw output shows is found there, a controller without the
exchange is told apart from one that answers wrongly, and a collection
resumes where its journal ends."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench.emulator.misbehaviours import Policy
from bench.emulator.rng_misbehaviours import LuckyRng
from bench.emulator.threaded import threaded_controller
from bench.rng.sources import read
from bench.rules.submission import default_rules
from tests import console
from tests.json_schemas import assert_json_lines, json_record

REPO = Path(__file__).resolve().parents[2]
LD = "lightning-dice"


def bench(*args) -> subprocess.CompletedProcess:
    """``bench rng ARGS`` through its main in this process (tests/console.py; the command in a
    process of its own: tests/rng/test_rng_journals.py)."""
    return console.bench("rng", *args)


def collect(tmp_path: Path, n: int, *, misbehave: str | None = None, policy=None, name: str = "c"):
    with threaded_controller(LD, default_rules(LD), seed=9, misbehave=misbehave, policy=policy) as url:
        return bench("--collect", str(n), "--controller", url, "--out", str(tmp_path / name))


def test_the_compliant_controllers_raw_and_scaled_output_passes_the_battery(tmp_path):
    done = collect(tmp_path, 6_000)
    assert done.returncode == 0, done.stderr
    journal = tmp_path / "c" / "collection.jsonl"
    judged = bench(str(journal), "--json")
    assert judged.returncode == 0, judged.stdout[-2000:]
    lines = assert_json_lines(judged.stdout, "rng")
    tests = [line for line in lines if line["record"] == "test"]
    assert {t["clause"] for t in tests} >= {f"810a.5(c)({i})" for i in range(1, 16)}
    assert {t["source"].split("(")[0] for t in tests} >= {"raw", "scaled"}
    assert json_record(judged.stdout, "rng", "verdict")["verdict"] == "pass"


def test_a_stuck_low_bit_fails_in_the_raw_output_naming_the_test(tmp_path):
    assert collect(tmp_path, 5_000, misbehave="stuck-low-bit").returncode == 0
    judged = bench(str(tmp_path / "c" / "collection.jsonl"))
    assert judged.returncode == 1
    verdict = judged.stdout.strip().splitlines()[-1]
    assert verdict.startswith("FAIL") and "bit positions on raw" in verdict and "scaled" not in verdict


class NoExchange(Policy):
    rng_exchange = False


class OutOfRange(LuckyRng):
    def scale(self, size: int) -> int:
        return size


class WrongScaling(Policy):
    def make_lucky_rng(self, seed: int) -> LuckyRng:
        return OutOfRange(seed)


def test_a_controller_without_the_exchange_is_told_apart_from_one_that_answers_wrongly(tmp_path):
    absent = collect(tmp_path, 100, policy=NoExchange(), name="absent")
    assert absent.returncode == 2 and "does not offer the raw RNG exchange" in absent.stderr
    wrong = collect(tmp_path, 100, policy=WrongScaling(), name="wrong")
    assert wrong.returncode == 1 and "field values: 16 is outside 0..15" in wrong.stderr


def test_a_collection_resumes_where_its_journal_ends(tmp_path):
    assert collect(tmp_path, 40).returncode == 0
    assert collect(tmp_path, 100).returncode == 0
    drawn = read(str(tmp_path / "c" / "collection.jsonl"))
    assert (len(drawn.raw), len(drawn.scaled), drawn.scaled_size) == (100, 100, 16)


def test_a_file_that_is_not_a_journal_is_bad_input_in_one_line(tmp_path):
    hostile = tmp_path / "x.jsonl"
    hostile.write_bytes(b'{"kind": "session"}\n\xff\xfe garbage\n')
    judged = bench(str(hostile))
    assert judged.returncode == 2 and judged.stderr.count("\n") == 1 and str(hostile) in judged.stderr
