"""bench rng on the journals bench run writes: the Lucky draws read are the
LUCKY frames the controller sent, staged probe rounds are left out of the
physical randomiser, and two sessions that announce different seeds but
draw the same sequence (same-sequence-after-restart) fail the
non-repeatability of 810a.5(a)(1) while two compliant ones do not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.emulator.threaded import threaded_controller
from bench.rng.sources import read
from bench.session.cycle import Phases
from bench.session.runner import SessionConfig, run_session, session_rules
from tests.json_schemas import assert_json_lines

REPO = Path(__file__).resolve().parents[2]
LD = "lightning-dice"


def journal(tmp_path: Path, seed: int, misbehave: str | None = None, rounds: int = 40) -> Path:
    config = SessionConfig(game=LD, rounds=rounds, seed=seed, out=str(tmp_path / f"s{seed}"), plant="dice",
                           phases=Phases(), progress=False)
    with threaded_controller(LD, session_rules(config), seed=seed, misbehave=misbehave) as url:
        config.controller = url
        return Path(run_session(config).journal)


def lucky_frames(path: Path) -> list[str]:
    firsts = []
    for line in path.read_text().splitlines()[1:]:
        for entry in json.loads(line).get("wire", []):
            if entry[0] == "rx" and entry[1] == "message" and entry[6]["type"] == "LUCKY":
                firsts.append(entry[6]["lucky"][0]["bet"])
    return firsts


def test_the_draws_read_are_the_lucky_frames_and_staged_rounds_are_left_out(tmp_path):
    path = journal(tmp_path, 5)
    drawn = read(str(path))
    assert [drawn.positions[i] for i in drawn.lucky_first] == lucky_frames(path)
    assert len(drawn.lucky_first) == 40
    staged = sum(1 for line in path.read_text().splitlines()[1:] if json.loads(line).get("probe"))
    assert staged and len(drawn.physical) == 3 * (40 - staged)


def test_the_same_sequence_after_a_restart_fails_non_repeatability(tmp_path):
    same = [journal(tmp_path, seed, "same-sequence-after-restart") for seed in (11, 12)]
    fair = [journal(tmp_path, seed) for seed in (13, 14)]
    judged = subprocess.run([sys.executable, "-m", "bench.cli", "rng", "--json", *map(str, same)], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert judged.returncode == 1
    lines = assert_json_lines(judged.stdout, "rng")
    across = next(x for x in lines if x["record"] == "test" and x["test"] == "non-repeatability")
    assert across["statistic"] == 40 and not across["family_passed"] and across["clause"] == "810a.5(a)(1)"
    honest = subprocess.run([sys.executable, "-m", "bench.cli", "rng", "--json", *map(str, fair)], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    across = next(x for x in assert_json_lines(honest.stdout, "rng")
                  if x["record"] == "test" and x["test"] == "non-repeatability")
    assert across["family_passed"] and across["statistic"] < 6
