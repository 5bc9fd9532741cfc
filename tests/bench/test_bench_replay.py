"""bench replay: the journal alone re-verifies a session; a changed byte, a
removed line, a forged payout are found; a disputed drop is simulated again."""

import json
import shutil
import subprocess
import sys

import pytest

from bench.journal import JournalWriter, canonical, record_hash
from bench.runner import SessionConfig, run_session


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("session")
    outcome = run_session(SessionConfig(game="lightning-dice", rounds=4, seed=8, out=str(out), progress=False))
    return outcome


def replay(*args):
    return subprocess.run([sys.executable, "-m", "bench.cli", "replay", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def copy(recorded, tmp_path):
    path = tmp_path / "session.jsonl"
    shutil.copy(recorded.journal, path)
    return path


def test_untouched_journal_passes_with_its_head(recorded):
    result = replay(recorded.journal, "--head", recorded.head)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 rounds re-verified, 0 violations" in result.stdout


def test_one_changed_byte_fails_naming_the_record(recorded, tmp_path):
    path = copy(recorded, tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b"SETTLE " in line)
    lines[at] = lines[at].replace(b"returned=", b"returned=9", 1)
    path.write_bytes(b"".join(lines))
    result = replay(path)
    assert result.returncode == 1
    assert f"line {at + 1}:" in result.stdout


def test_removed_line_fails(recorded, tmp_path):
    path = copy(recorded, tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    del lines[10]
    path.write_bytes(b"".join(lines))
    result = replay(path)
    assert result.returncode == 1
    assert "line 11:" in result.stdout and "removed" in result.stdout


def test_forged_payout_with_a_recomputed_chain_is_still_caught(recorded, tmp_path):
    """A forger who edits a SETTLE frame, its CRC and every hash after it
    keeps the chain valid; the oracle still recomputes the payout."""
    from bench.protocol import Codec, make
    records = [json.loads(line) for line in recorded.journal.read_text().splitlines()]
    codec = Codec("lightning-dice")
    target = next(r for r in records if r.get("message", {}).get("type") == "SETTLE"
                  and r["dir"] == "rx" and r["frame"] == "message")
    message = target["message"]
    forged = make("SETTLE", round=message["round"], id=message["id"], returned=message["returned"] + 100000)
    raw = codec.encode(forged, message["seq"])
    target["raw"] = raw.decode("ascii")
    target["message"] = {**message, "returned": message["returned"] + 100000}
    path = tmp_path / "forged.jsonl"
    with JournalWriter(path) as journal:
        for record in records:
            data = {k: v for k, v in record.items() if k not in ("kind", "seq", "prev", "hash")}
            journal.append(record["kind"], **data)
    result = replay(path)
    assert "intact" in result.stdout
    assert result.returncode == 1
    assert "returned" in result.stdout and message["id"] in result.stdout
    anchored = replay(path, "--head", recorded.head)
    assert anchored.returncode == 1 and "head hash" in anchored.stdout


def test_a_crash_loses_only_the_round_in_flight(recorded, tmp_path):
    path = copy(recorded, tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    ends = [i for i, line in enumerate(lines) if b'"kind":"round-end"' in line]
    cut = ends[1] + 6                                   # a few records into round 3
    torn = lines[:cut] + [lines[cut][: len(lines[cut]) // 2]]
    path.write_bytes(b"".join(torn))
    result = replay(path)
    assert "cut off mid-write" in result.stdout
    assert "incomplete rounds: 3" in result.stdout
    assert "2 rounds re-verified" in result.stdout


def test_disputed_drop_is_simulated_again_and_drawn(recorded, tmp_path):
    gif = tmp_path / "round2.gif"
    result = replay(recorded.journal, "--round", 2, "--gif", gif)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the same" in result.stdout
    from PIL import Image
    with Image.open(gif) as image:
        assert image.n_frames > 5


def test_record_hash_covers_every_field():
    body = {"kind": "frame", "seq": 1, "prev": "0" * 64, "raw": "$0001 OPEN round=1*ABCD\r\n"}
    assert record_hash(body) != record_hash({**body, "raw": body["raw"].replace("1", "2")})
    assert canonical(body) == canonical(dict(reversed(list(body.items()))))
