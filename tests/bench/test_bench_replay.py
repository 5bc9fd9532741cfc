"""bench replay: the journal alone re-verifies a session; a changed byte, a
removed line, a forged payout are found; a disputed drop is simulated again."""

import json
import shutil
import subprocess
import sys

import pytest

from bench.journal.chain import JournalWriter, canonical_bytes
from bench.session.runner import SessionConfig, run_session
from tests import console
from tests.json_schemas import json_record


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("session")
    outcome = run_session(SessionConfig(game="lightning-dice", rounds=4, seed=8, out=str(out), progress=False))
    return outcome


def replay_process(*args):
    """``bench replay`` as a user runs it, in a process of its own (the console script's contract)."""
    return subprocess.run([sys.executable, "-m", "bench.cli", "replay", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def replay(*args):
    """``bench replay`` through its main in this process (tests/console.py)."""
    return console.bench("replay", *args)


def copy(recorded, tmp_path):
    path = tmp_path / "session.jsonl"
    shutil.copy(recorded.journal, path)
    return path


def test_untouched_journal_passes_with_its_head(recorded):
    result = replay_process(recorded.journal, "--head", recorded.head)
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


def round_lines(lines):
    return [i for i, line in enumerate(lines) if b'"kind":"round"' in line]


def test_removed_line_fails(recorded, tmp_path):
    path = copy(recorded, tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    at = round_lines(lines)[1]                         # round 2's record
    del lines[at]
    path.write_bytes(b"".join(lines))
    result = replay(path)
    assert result.returncode == 1
    assert f"line {at + 1}:" in result.stdout and "removed" in result.stdout


def rewrite(records, path):
    """Write ``records`` again as a new, internally consistent hash chain."""
    with JournalWriter(path) as journal:
        for record in records:
            data = {k: v for k, v in record.items() if k not in ("kind", "seq", "prev", "hash")}
            journal.append(record["kind"], **data)


def settle_row(records):
    """The first SETTLE the controller sent: (its record, its row in the wire)."""
    for record in records:
        for row in record.get("wire", ()):
            if row[0] == "rx" and row[1] == "message" and row[6]["type"] == "SETTLE":
                return record, row
    raise AssertionError("no SETTLE in the journal")


def test_forged_payout_with_a_recomputed_chain_is_still_caught(recorded, tmp_path):
    """A forger who edits a SETTLE frame, its CRC and every hash after it
    keeps the chain valid; the oracle still recomputes the payout."""
    from bench.protocol import Codec, make
    records = [json.loads(line) for line in recorded.journal.read_text().splitlines()]
    _, row = settle_row(records)
    message = row[6]
    forged = make("SETTLE", round=message["round"], id=message["id"], returned=message["returned"] + 100000)
    row[5] = Codec("lightning-dice").encode(forged, message["seq"]).decode("ascii")
    row[6] = {**message, "returned": message["returned"] + 100000}
    path = tmp_path / "forged.jsonl"
    rewrite(records, path)
    result = replay(path)
    assert "intact" in result.stdout
    assert result.returncode == 1
    assert "returned" in result.stdout and message["id"] in result.stdout
    anchored = replay(path, "--head", recorded.head)
    assert anchored.returncode == 1 and "head hash" in anchored.stdout


def test_a_verdict_is_checked_against_the_raw_bytes(recorded, tmp_path):
    """A recorded message that says other than the bytes on the wire is found
    when the oracle faults it: the evidence of a verdict is the raw frame."""
    records = [json.loads(line) for line in recorded.journal.read_text().splitlines()]
    _, row = settle_row(records)
    row[6] = {**row[6], "returned": row[6]["returned"] + 7}      # the raw bytes are left alone
    path = tmp_path / "forged.jsonl"
    rewrite(records, path)
    result = replay(path)
    assert result.returncode == 1
    assert "the decoded message differs from the recorded one" in result.stdout
    # Only the frames faulted (the SETTLE, and the SETTLED whose sum no longer agrees) were decoded again.
    assert "frames decoded again from their raw bytes: 2" in result.stdout


def test_redecode_judges_every_frame_from_its_raw_bytes(recorded):
    from bench.journal.replay import replay as replay_journal
    fast = replay_journal(recorded.journal)
    full = replay_journal(recorded.journal, redecode=True)
    assert fast.passed and full.passed
    assert fast.redecoded == 0
    assert full.redecoded == full.oracle.frames > 4 * 20     # every judged frame of four rounds
    assert [r.round for r in full.oracle.rounds] == [r.round for r in fast.oracle.rounds]


def test_a_crash_loses_only_the_round_in_flight(recorded, tmp_path):
    path = copy(recorded, tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    third = round_lines(lines)[2]                       # round 3's record, cut mid-write
    assert b'"probe":' in lines[third]                  # a staged round: its probe sorts between prev and round
    torn = lines[:third] + [lines[third][: len(lines[third]) // 2]]
    path.write_bytes(b"".join(torn))
    result = replay(path)
    assert "cut off mid-write" in result.stdout
    assert "incomplete rounds: 3" in result.stdout
    assert "2 rounds re-verified" in result.stdout


def test_a_session_cut_off_between_rounds_says_so(recorded, tmp_path):
    path = copy(recorded, tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[: round_lines(lines)[2]]))      # the process died in round 3
    result = replay(path)
    assert "2 rounds re-verified" in result.stdout
    assert "ends without its session-end record" in result.stdout


def test_a_schema_1_journal_still_replays():
    """Journals written before one record a round (a record a frame) stay
    verifiable: regulators keep them for years."""
    from pathlib import Path
    fixture = Path(__file__).resolve().parents[2] / "fixtures/journals/schema1-lightning-dice.jsonl"
    head = fixture.with_suffix(".head").read_text().strip()
    result = replay(fixture, "--head", head)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 rounds re-verified, 0 violations" in result.stdout
    tampered = fixture.read_bytes().replace(b"returned=", b"returned=9", 1)
    assert tampered != fixture.read_bytes()


def test_disputed_drop_is_simulated_again_and_drawn(recorded, tmp_path):
    gif, png = tmp_path / "round2.gif", tmp_path / "round2.png"
    result = replay(recorded.journal, "--round", 2, "--gif", gif, "--png", png)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the same" in result.stdout
    assert "twin: the same as the one that recorded the session" in result.stdout
    from PIL import Image
    with Image.open(gif) as image:
        assert image.n_frames > 5
    with Image.open(png) as image:
        assert image.format == "PNG"


def test_a_records_hashed_bytes_do_not_depend_on_the_order_of_its_fields():
    """A verifier in another language hashes the bytes it reads; the bench
    must write one form of a record whatever order its fields were built in."""
    body = {"kind": "frame", "seq": 1, "prev": "0" * 64, "raw": "$0001 OPEN round=1*ABCD\r\n\xff"}
    assert canonical_bytes(body) == canonical_bytes(dict(reversed(list(body.items()))))
    assert canonical_bytes(body).isascii()


def test_the_journal_and_the_summary_name_the_twin_that_drew_the_session(recorded):
    from twin.fingerprint import fingerprint
    header = json.loads(recorded.journal.read_text().splitlines()[0])
    here = fingerprint()
    assert header["twin"] == here and json.loads((recorded.journal.parent / "summary.json").read_text())["twin"] == here
    assert {"tablebench", "pybullet", "numpy", "scipy", "canary", "canaries"} <= set(here)
    assert len(here["canary"]) == 16 and set(here["canaries"]) == {"tower", "wheel"}


def _another_twin(monkeypatch):
    """This machine's twin made another: numpy and the tower's canary differ from the recorded."""
    from twin import fingerprint as module
    real = module.fingerprint()
    other = {**real, "numpy": "0.0.0", "canaries": {**real["canaries"], "tower": "0" * 16}, "canary": "1" * 16}
    monkeypatch.setattr(module, "fingerprint", lambda: other)
    return real, other


def test_replay_says_when_this_twin_is_not_the_one_that_recorded_the_round(recorded, monkeypatch, capsys):
    from bench.cli import main
    real, other = _another_twin(monkeypatch)
    assert main(["replay", str(recorded.journal), "--round", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    twin = next(line for line in lines if line.startswith("twin: "))
    assert twin == (f"twin: NOT the twin that recorded the session: numpy 0.0.0 here, {real['numpy']} recorded; "
                    f"the tower's canary {'0' * 16} here, {real['canaries']['tower']} recorded")
    assert lines[lines.index(twin) + 1].startswith("round 2: ") and lines[lines.index(twin) + 1].endswith("the same")

    assert main(["replay", str(recorded.journal), "--round", "2", "--json"]) == 0
    said = json_record(capsys.readouterr().out, "replay", "resimulated")
    assert said["same"] is True and said["twin"]["same"] is False and said["twin"]["told"] == twin
    assert said["twin"]["recorded"] == real and said["twin"]["here"] == other and len(said["twin"]["differences"]) == 2


def test_a_journal_that_names_no_twin_is_replayed_saying_so():
    from bench.journal.disputed_round import compare_twin
    from twin.fingerprint import draws_alike, fingerprint
    unknown = compare_twin(None)
    assert unknown.same is None and unknown.told.startswith("twin: the journal does not name the twin")
    here = fingerprint()
    newer = compare_twin({**here, "tablebench": "99.0"})
    assert newer.same is False and newer.differences == [f"tablebench {here['tablebench']} here, 99.0 recorded"]
    assert newer.told.endswith("(their canary drops and spins come out the same)")
    assert draws_alike({**here, "tablebench": "99.0"}, here, "wheel")


@pytest.mark.parametrize("schema", [2, 1])
def test_the_page_numbers_frames_as_the_oracle_does_however_many_fail_to_decode(tmp_path, schema, monkeypatch):
    """Frames whose raw bytes do not decode are skipped by the oracle; the
    page, numbering the oracle's frames to show a violation's, skips every
    one of them too, not only the hundred the replay names (review: it read
    the named list, so from the 101st on each frame shown was one too late).
    A schema-1 journal (a record a frame) is numbered the same way."""
    from pathlib import Path

    from bench.journal.chain import iter_records
    from bench.journal.replay import replay as replay_journal
    from bench.oracle.feed import judged_record, judged_rows
    from bench.report import session_facts
    if schema == 2:
        outcome = run_session(SessionConfig(game="lightning-dice", rounds=40, seed=8, out=str(tmp_path / "s"),
                                            progress=False))
        records = [r for _, r, _ in iter_records(outcome.journal)]
        rows = [r["wire"][j.index] for r in records for j in judged_rows(r.get("wire") or ())]
        raw_at = 5
    else:
        fixture = Path(__file__).resolve().parents[2] / "fixtures/journals/schema1-lightning-dice.jsonl"
        records = [r for _, r, _ in iter_records(fixture)]
        rows = [r for r in records if r["kind"] == "frame" and judged_record(r) is not None]
        raw_at = "raw"
    broken = rows[5:-5][: 150 if schema == 2 else 6]
    for row in broken:
        row[raw_at] = "\u0001not a frame\r\n"
    path = tmp_path / "broken.jsonl"
    rewrite(records, path)
    replayed = replay_journal(path, redecode=True)
    assert len(replayed.undecoded) == len(broken)
    if schema == 2:
        assert len(broken) > len(replayed.decode_problems) == 100      # the named list is capped
    counted = []
    real = session_facts._Reader.frame
    monkeypatch.setattr(session_facts._Reader, "frame",
                        lambda self, *a: counted.append(1) or real(self, *a))
    session_facts.read_session(path, redecode=True)
    assert len(counted) == replayed.oracle.frames
