"""Sealed journals: a regulator who keeps only the bench key's fingerprint
finds any rewrite of a sealed journal, even one whose whole hash chain was
computed again, and learns in which epoch; a key taken from the machine
later cannot seal an earlier epoch again."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.errors import BenchError
from bench.journal.chain import JournalWriter
from bench.journal.keys import (KeyFileError, audit_path, load_sessions, load_state, new_key, next_seed, path_leads_to,
                        public_of, take_session, trusted_fingerprint, tree_root)
from bench.protocol import Codec, make
from bench.journal.replay import replay
from bench.journal.replay_text import describe
from bench.session.runner import SessionConfig, run_session
from bench.journal.seal import Sealer

ROOT = Path(__file__).resolve().parents[2]
ROUNDS, EVERY = 6, 2          # epochs: 0 the header, 1-3 two rounds each, 4 the session's end (final)


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    folder = tmp_path_factory.mktemp("key") / "bench"
    return folder, new_key(folder, sessions=8)


@pytest.fixture(scope="module")
def sealed(tmp_path_factory, key):
    out = tmp_path_factory.mktemp("sealed")
    return run_session(SessionConfig(game="lightning-dice", rounds=ROUNDS, seed=11, out=str(out), progress=False,
                                     probes=False, key=str(key[0] / "bench.key"), seal_every=EVERY))


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def rechain(records: list[dict], path: Path) -> Path:
    """The forger's tool: ``records`` written as a new, internally consistent
    hash chain (seal records copied as they are, with new ``seq``/``prev``)."""
    with JournalWriter(path) as journal:
        for record in records:
            journal.append(record["kind"], **{k: v for k, v in record.items() if k not in ("kind", "seq", "prev", "hash")})
    return path


def epoch_of(records: list[dict], index: int) -> int:
    """The epoch whose seal covers ``records[index]``: the seals before it."""
    return sum(1 for record in records[:index] if record["kind"] == "seal")


def rows(records, kind: str, direction: str):
    for index, record in enumerate(records):
        for row in record.get("wire") or ():
            if row[0] == direction and row[6] and row[6]["type"] == kind:
                yield index, row


def reencode(row, **changes) -> None:
    """A frame changed consistently: decoded message and raw bytes (with its CRC) agree."""
    message = {**row[6], **changes}
    fields = {k: v for k, v in message.items() if k not in ("type", "seq")}
    row[5] = Codec("lightning-dice").encode(make(message["type"], **fields), message["seq"]).decode("ascii")
    row[6] = message


def losing_wager(records, nth: int = 0):
    settled = {row[6]["id"]: row[6]["returned"] for _, row in rows(records, "SETTLE", "rx")}
    return [(i, r) for i, r in rows(records, "WAGER", "tx") if settled.get(r[6]["id"]) == 0][nth]


def losing_stake(records):
    # Moved within the stake limits (601a.2): a forgery the oracle has no rule against. (The
    # covering players also stake the limits themselves, so a stake is lowered, not raised.)
    index, row = losing_wager(records)
    stake = row[6]["stake"]
    reencode(row, stake=stake - 100 if stake > 100 else stake + 100)
    return records, index


def session_seed(records):
    records[0]["seed"] += 1
    return records, 0


def timestamp(records):
    index, row = next(rows(records, "RESULT", "rx"))
    row[3] -= 30.0                                         # the wall time of a RESULT, moved
    return records, index


def hello(records):
    index, row = next(rows(records, "HELLO", "rx"))
    reencode(row, sw="certified-controller/9.9")
    return records, index


def raw_versus_decoded(records):
    index, row = losing_wager(records, -1)
    row[6] = {**row[6], "stake": row[6]["stake"] * 50}     # the decoded message no longer says what the bytes say
    return records, index


def removed_round(records):
    index = [i for i, r in enumerate(records) if r["kind"] == "round"][3]
    del records[index]
    return records, index


def added_round(records):
    index = [i for i, r in enumerate(records) if r["kind"] == "round"][2]
    records.insert(index + 1, copy.deepcopy(records[index]))
    return records, index + 1


FORGERIES = [losing_stake, session_seed, timestamp, hello, raw_versus_decoded, removed_round, added_round]
# Without seals these replay as PASS: nothing in them is for the oracle to judge.
UNSEEN_WITHOUT_SEALS = {losing_stake, session_seed, timestamp, hello, raw_versus_decoded}


def test_a_sealed_session_replays_to_pass_with_the_fingerprint_or_the_key_file(sealed, key):
    folder, found = key
    assert sealed.seal == {"fingerprint": found, "session": 0, "every": EVERY}
    for pubkey in (found, str(folder / "bench.pub")):
        result = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(sealed.journal), "--pubkey", pubkey],
                                capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"seals: key {found}, session 0: {ROUNDS // EVERY + 2} epochs verified, sealed to the end" \
            in result.stdout
    unchecked = replay(sealed.journal)
    assert unchecked.passed and "seals: not checked (no --pubkey)" in describe(unchecked)


@pytest.mark.parametrize("forge", FORGERIES, ids=lambda f: f.__name__)
def test_a_rechained_forgery_fails_naming_its_epoch(sealed, key, tmp_path, forge):
    records, changed = forge(records_of(sealed.journal))
    path = rechain(records, tmp_path / "forged.jsonl")
    plain = replay(path)
    assert plain.chain.ok                                  # the chain was computed again: it holds
    if forge in UNSEEN_WITHOUT_SEALS:
        assert plain.passed, describe(plain)
    checked = replay(path, pubkey=key[1])
    assert not checked.passed
    assert checked.seals.problems[0].startswith(f"epoch {epoch_of(records, changed)} "), checked.seals.problems
    assert checked.seals.epochs == epoch_of(records, changed)   # every epoch before it still verifies


def test_a_removed_epoch_is_named(sealed, key, tmp_path):
    records = records_of(sealed.journal)
    seals = [i for i, r in enumerate(records) if r["kind"] == "seal"]
    del records[seals[1] + 1: seals[2] + 1]                # epoch 2's rounds and its seal
    checked = replay(rechain(records, tmp_path / "forged.jsonl"), pubkey=key[1])
    assert not checked.passed
    assert checked.seals.problems[0].startswith("epoch 2 ") and "says epoch 3" in checked.seals.problems[0]


def test_a_stolen_current_key_cannot_seal_an_earlier_epoch(tmp_path):
    """Someone takes the machine after epoch 1 is sealed: the epoch key in
    memory and a copy of the key state. Neither can seal epoch 1 again."""
    folder = tmp_path / "key"
    found = new_key(folder, sessions=4)
    journal_path = tmp_path / "session.jsonl"
    sealer = Sealer(take_session(folder / "bench.key"), every=1)
    with JournalWriter(journal_path, sealer=sealer) as journal:
        journal.append("session", schema=2, seed=5, seal=sealer.header)
        journal.write_round(1, wire=[], plants=[{"round": 1, "seed": 5, "dice": [1, 2, 3]}], verdicts=[])
        stolen_key, stolen_epoch = sealer._key, sealer.epoch          # epoch 2's key, in memory
        stolen_state = tmp_path / "stolen.key"
        shutil.copy(folder / "bench.key", stolen_state)
        shutil.copy(folder / "bench.sessions", tmp_path / "bench.sessions")
        journal.write_round(2, wire=[], plants=[{"round": 2, "seed": 6, "dice": [4, 5, 6]}], verdicts=[])
    assert stolen_epoch == 2
    assert replay_seals(journal_path, found).ok

    records = records_of(journal_path)
    records[2]["plants"][0]["dice"] = [6, 6, 6]            # round 1, epoch 1
    # 1. Every seal whose chain head changed signed again with the stolen key.
    from bench.journal.seal import seal_message
    with JournalWriter(tmp_path / "forged.jsonl") as forged:
        for record in records:
            data = {k: v for k, v in record.items() if k not in ("kind", "seq", "prev", "hash")}
            if record["kind"] == "seal" and forged.head != record["prev"]:
                data["signature"] = stolen_key.sign(seal_message(data["epoch"], forged.seq, forged.head,
                                                                 data["next"], data["wall"])).hex()
            forged.append(record["kind"], **data)
    report = replay_seals(tmp_path / "forged.jsonl", found)
    assert report.problems[0].startswith("epoch 1 ") and report.epochs == 1
    # 2. The whole journal sealed afresh from the stolen key state: it can only
    #    be another session, never the one that was sealed.
    resealer = Sealer(take_session(stolen_state), every=1)
    assert resealer.session == 1
    header = {**resealer.header, "session": 0}             # claiming to be session 0
    with JournalWriter(tmp_path / "resealed.jsonl", sealer=resealer) as resealed:
        resealed.append("session", schema=2, seed=5, seal=header)
        for record in records[1:]:
            if record["kind"] == "round":
                resealed.write_round(record["round"], wire=[], plants=record["plants"], verdicts=[])
    report = replay_seals(tmp_path / "resealed.jsonl", found)
    assert report.problems and report.problems[0].startswith("header: seal.session_key: session key 0 is not")


def replay_seals(path: Path, fingerprint: str):
    from bench.journal.chain import verify_journal
    from bench.journal.seal import SealCheck
    check = SealCheck(fingerprint)
    assert verify_journal(path, visit=check).ok
    return check.report


def test_a_journal_sealed_with_another_key_fails(sealed, tmp_path):
    other = new_key(tmp_path / "other", sessions=1)
    checked = replay(sealed.journal, pubkey=other)
    assert not checked.passed
    assert checked.seals.problems == [f"header: sealed with another key: the journal's key is "
                                      f"{sealed.seal['fingerprint']}, not {other}"]


def test_an_unsealed_journal_says_so_and_fails_when_a_key_is_expected(key, tmp_path):
    outcome = run_session(SessionConfig(game="lightning-dice", rounds=1, seed=3, out=str(tmp_path), progress=False,
                                        probes=False))
    assert outcome.seal is None
    assert "seals: none: the journal is unsealed" in describe(replay(outcome.journal))
    checked = replay(outcome.journal, pubkey=key[1])
    assert not checked.passed and "not sealed" in checked.seals.problems[0]


def test_records_after_the_last_seal_are_reported_unsealed(sealed, key, tmp_path):
    """A crash between seals: what was sealed stands, the rest is listed as unsealed."""
    lines = sealed.journal.read_bytes().splitlines(keepends=True)
    seals = [i for i, line in enumerate(lines) if b'"kind":"seal"' in line]
    path = tmp_path / "crashed.jsonl"
    path.write_bytes(b"".join(lines[: seals[2] + 3]))      # epoch 2 sealed, then rounds 5 and 6 only
    checked = replay(path, pubkey=key[1])
    # What is there is intact; the session, cut off before its end, fails.
    assert checked.intact and not checked.seals.final
    assert checked.ending == "cut-off" and not checked.passed
    assert checked.seals.epochs == 3 and checked.seals.unsealed_rounds == [5, 6]
    told = describe(checked)
    assert f"lines 1–{seals[2] + 1} verified (rounds 1–4)" in told, told
    assert f"lines {seals[2] + 2}–{seals[2] + 3} UNVERIFIED (rounds 5, 6)" in told, told


def test_a_record_appended_after_the_final_seal_fails(sealed, key, tmp_path):
    path = tmp_path / "appended.jsonl"
    shutil.copy(sealed.journal, path)
    with JournalWriter(path) as journal:
        journal.append("note", text="added later")
    checked = replay(path, pubkey=key[1])
    assert not checked.passed and "after the final seal" in checked.seals.problems[0]


def test_key_files_with_wide_permissions_are_refused(tmp_path):
    folder = tmp_path / "key"
    new_key(folder, sessions=2)
    private = folder / "bench.key"
    assert private.stat().st_mode & 0o777 == 0o600
    os.chmod(private, 0o640)
    with pytest.raises(KeyFileError, match="permissions 0640"):
        take_session(private)
    result = subprocess.run([sys.executable, "-m", "bench.cli", "run", "--rounds", "1", "--key", str(private),
                             "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 2
    told = [line for line in result.stderr.splitlines() if not line.startswith("pybullet build time")]
    assert len(told) == 1 and told[0].startswith("bench run: ") and "permissions 0640" in told[0]
    assert not (tmp_path / "out" / "session.jsonl").exists()


def test_taking_a_session_key_moves_the_state_past_it_for_good(tmp_path):
    folder = tmp_path / "key"
    new_key(folder, sessions=3)
    private = folder / "bench.key"
    leaves = load_sessions(load_state(private))
    taken = [take_session(private) for _ in range(3)]
    assert [t.index for t in taken] == [0, 1, 2]
    state = load_state(private)
    assert state.next == 3 and state.seed is None
    with pytest.raises(BenchError, match="all 3 session keys are used"):
        take_session(private)
    # The seeds run forward only: the state after session 0 holds session 1's seed, from
    # which session 0's key is not among those it leads to.
    seed = taken[1].private.private_bytes_raw()
    reachable = set()
    for _ in range(3):
        reachable.add(public_of(seed))
        seed = next_seed(seed)
    assert leaves[0] not in reachable and leaves[1] in reachable


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 8, 13])
def test_every_session_key_has_an_audit_path_to_the_tree_head(size):
    leaves = [bytes([i]) * 32 for i in range(size)]
    root = tree_root(leaves)
    for index in range(size):
        path = audit_path(index, leaves)
        assert path_leads_to(root, size, index, leaves[index], path)
        assert not path_leads_to(root, size, index, bytes([99]) * 32, path)
        if size > 1:
            assert not path_leads_to(root, size, (index + 1) % size, leaves[index], path)


def test_pubkey_is_a_file_or_a_fingerprint(key):
    folder, found = key
    assert trusted_fingerprint(str(folder / "bench.pub")) == found
    assert trusted_fingerprint(found.upper().replace("SHA256:", "")) == found
    with pytest.raises(KeyFileError, match="neither a public key file nor a fingerprint"):
        trusted_fingerprint("sha256:1234")


def test_the_pytest_controller_journal_is_sealed(key, tmp_path):
    from bench.emulator.process import emulated_controller
    from bench.scenarios.controller_table import ControllerConnection
    from bench.rules.submission import default_rules
    folder, found = key
    with emulated_controller("lightning-dice", seed=3, stderr_path=str(tmp_path / "emulator.log")) as url:
        conn = ControllerConnection(url, "lightning-dice", default_rules("lightning-dice"),
                                    journal=tmp_path / "journal.jsonl", key=str(folder / "bench.key"))
        try:
            conn.handshake()
            for number in range(1, 4):
                wager = conn.wager_id()
                conn.send("WAGER", round=conn.betting_round(), id=wager, bet="low", stake=100)
                assert conn.reply_to(wager).type == "ACCEPT"
                conn.end_scenario(f"test_{number}", conn.open_round)
        finally:
            conn.close()
    checked = replay(tmp_path / "journal.jsonl", pubkey=found)
    assert checked.passed, describe(checked)
    assert checked.seals.final and checked.seals.epochs >= 2 and checked.seals.unsealed_records == 0


def test_a_changed_byte_without_a_new_chain_names_its_line_and_epoch(sealed, key, tmp_path):
    lines = sealed.journal.read_bytes().splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if b'"kind":"round"' in line][4]      # round 5: epoch 3
    lines[at] = lines[at].replace(b"stake=", b"stake=9", 1)
    path = tmp_path / "changed.jsonl"
    path.write_bytes(b"".join(lines))
    checked = replay(path, pubkey=key[1])
    assert not checked.passed
    assert f"line {at + 1} (epoch 3): record" in describe(checked)


@pytest.fixture(scope="module")
def sealed_odd(tmp_path_factory, key):
    """Five rounds sealed every two: round 5 lies between the last interval seal and the session's end."""
    out = tmp_path_factory.mktemp("sealed-odd")
    return run_session(SessionConfig(game="lightning-dice", rounds=5, seed=12, out=str(out), progress=False,
                                     probes=False, key=str(key[0] / "bench.key"), seal_every=EVERY))


def strip_final_seal_and_rewrite_a_stake(records):
    """The forgery of issue 26: the final seal deleted, a losing stake raised in a round after the last
    seal left, the chain computed again. No key is needed for it."""
    assert records[-1]["kind"] == "seal" and records[-1]["next"] is None
    del records[-1]
    last_seal = max(i for i, r in enumerate(records) if r["kind"] == "seal")
    settled = {row[6]["id"]: row[6]["returned"] for _, row in rows(records, "SETTLE", "rx")}
    index, row = next((i, r) for i, r in rows(records, "WAGER", "tx")
                      if i > last_seal and settled.get(r[6]["id"]) == 0)
    reencode(row, stake=row[6]["stake"] + 100)
    return records, index


def test_a_session_end_without_its_final_seal_fails_even_rechained(sealed_odd, key, tmp_path):
    records, changed = strip_final_seal_and_rewrite_a_stake(records_of(sealed_odd.journal))
    path = rechain(records, tmp_path / "stripped.jsonl")
    assert replay(path).chain.ok                           # the forger's chain holds
    checked = replay(path, pubkey=key[1])
    assert not checked.passed and checked.exit_status == 1
    end_line = next(i for i, r in enumerate(records, start=1) if r["kind"] == "session-end")
    assert any(f"line {end_line}: the session-end record has no final seal" in p for p in checked.seals.problems), \
        checked.seals.problems
    told = describe(checked)
    assert "FAIL" in told and "(round 5)" in told        # the round it changed is named as not evidence
    done = subprocess.run([sys.executable, "-m", "bench.cli", "replay", str(path), "--pubkey", key[1]],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1 and "no final seal" in done.stdout


def test_a_round_after_the_last_seal_of_an_ended_journal_fails(sealed, key, tmp_path):
    """The final seal kept, a round moved in after the last interval seal and before the session's end:
    the final seal no longer verifies; and with the final seal removed too, it fails all the same."""
    records = records_of(sealed.journal)
    end = next(i for i, r in enumerate(records) if r["kind"] == "session-end")
    extra = copy.deepcopy(next(r for r in records if r["kind"] == "round" and r["round"] == 6))
    extra["round"] = 7
    records.insert(end, extra)
    for name, forged in (("kept", records), ("removed", records[:-1])):
        checked = replay(rechain(forged, tmp_path / f"{name}.jsonl"), pubkey=key[1])
        assert not checked.passed and checked.seals.problems, name


@pytest.mark.parametrize("change", ["repeated", "missing"])
def test_a_repeated_or_missing_epoch_is_named(sealed, key, tmp_path, change):
    records = records_of(sealed.journal)
    seals = [i for i, r in enumerate(records) if r["kind"] == "seal"]
    if change == "repeated":
        records.insert(seals[2] + 1, copy.deepcopy(records[seals[2]]))      # epoch 2's seal twice
    else:
        del records[seals[2]]                                               # epoch 2's seal gone
    checked = replay(rechain(records, tmp_path / "forged.jsonl"), pubkey=key[1])
    assert not checked.passed
    assert checked.seals.problems[0].startswith("epoch 2 " if change == "missing" else "epoch 3 "), \
        checked.seals.problems

