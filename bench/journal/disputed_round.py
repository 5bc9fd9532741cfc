"""One disputed round of a journal, looked at again (``bench replay
--round N``): its plant readings, its camera calls judged again against the
twin's truth, and its last drop or spin simulated again from its recorded
seed, with this machine's twin compared with the one that recorded it.
Apart from ``bench.journal.replay``, which verifies and judges a whole
journal; this needs the physics, which that never does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.errors import BenchError
from bench.journal.replay import readable_records, rules_from_header, session_file
from bench.oracle import Oracle
from bench.oracle.feed import judged_camera
from bench.rules.registry import game_names


def plant_records(path: str | Path, round_no: int) -> list[dict]:
    """The plant's readings in round ``round_no``, in order (schema 2: inside
    the round records; schema 1: ``plant`` records)."""
    found = []
    for _, record in readable_records(path):
        if record.get("kind") == "plant" and record.get("round") == round_no:
            found.append(record)
        plants = record.get("plants")
        for reading in plants if isinstance(plants, list) else ():
            if isinstance(reading, dict) and reading.get("round") == round_no:
                found.append(reading)
    return found


def camera_calls(path: str | Path, round_no: int) -> list[dict]:
    """Round ``round_no``'s camera calls (``bench run --camera`` with a
    recogniser), each with the twin's truth, what was sent, how it was
    called and the oracle's judgement of it made again
    (``bench.oracle.recognition``); empty for a round without one."""
    rows = [row for row in map(judged_camera, plant_records(path, round_no)) if row is not None]
    if not rows:
        return []
    _, header = next(readable_records(path))
    game = header.get("game")
    if game not in game_names():
        raise BenchError(f"{path}: the session header names no game the bench knows: {game!r}")
    oracle = Oracle(game, rules_from_header(header, []))
    calls = []
    for row in rows:
        found = oracle.recognised(row)
        calls.append({"frame": row.frame, "truth": row.truth, "sent": row.sent, "call": row.call,
                      "rereads": row.rereads,
                      "verdicts": [{"clause": v.clause, "message": v.message} for v in found]})
    return calls


def describe_camera_call(round_no: int, call: dict, outcome) -> list[str]:
    """A camera call in words, for ``bench replay --round N``; ``outcome``:
    the game's kind of outcome (``bench.rules.outcome_kind``), which shows a reading."""
    shown = outcome.camera_shown
    truth, sent = call["truth"], call["sent"]
    how = "the recogniser's reading" if call["call"] == "read" else "the policy's call (the recogniser could not read)"
    lines = [f"round {round_no}: camera frame {call['frame']}: truth {shown(truth)}; sent {shown(sent)}, {how}"
             + (f", after {call['rereads']} re-reads" if call["rereads"] else "")]
    lines += [f"  judged again: {v['clause']}: {v['message']}" for v in call["verdicts"]] \
        or ["  judged again: the reading sent agrees with the truth" if call["call"] == "read"
            else "  judged again: no misread (the documented policy's no roll)"]
    return lines


@dataclass(frozen=True)
class TwinCompared:
    """The twin that recorded a journal (its header's ``twin``,
    ``twin.fingerprint``) against this machine's, which simulates its rounds
    again. ``same``: None when the journal does not say (written before
    journals recorded it)."""
    same: bool | None
    told: str                              # one line
    differences: list[str]                 # what differs, in words
    recorded: dict | None
    here: dict

    def to_json(self) -> dict:
        return {"same": self.same, "told": self.told, "differences": self.differences,
                "recorded": self.recorded, "here": self.here}


def compare_twin(recorded) -> TwinCompared:
    """The journal's twin (``recorded``, from its header) against this machine's."""
    from twin import fingerprint as twin_fingerprint
    here = twin_fingerprint.fingerprint()
    if not isinstance(recorded, dict):
        return TwinCompared(None, "twin: the journal does not name the twin that recorded it (written before "
                                  "journals did): the round is simulated on this machine's twin "
                                  f"({twin_fingerprint.describe(here)})", [], None, here)
    differences = twin_fingerprint.differences(recorded, here)
    if not differences:
        return TwinCompared(True, "twin: the same as the one that recorded the session "
                                  f"({twin_fingerprint.describe(here)})", [], recorded, here)
    alike = (" (their canary drops and spins come out the same)"
             if twin_fingerprint.draws_alike(recorded, here) else "")
    return TwinCompared(False, f"twin: NOT the twin that recorded the session: {'; '.join(differences)}{alike}",
                        differences, recorded, here)


def resimulate(path: str | Path, round_no: int, gif: str | None = None,
               design: str | Path | None = None, png: str | None = None) -> tuple[bool, str, TwinCompared]:
    """Simulate round ``round_no``'s last drop or spin again from its recorded
    seed, on the design the journal carries (or ``design``, which must be the
    same file); True if the physics gives the recorded outcome, with this
    machine's twin compared with the one that recorded the journal (an
    outcome found DIFFERENT on another twin may be the twin's, not the
    journal's). Draws a GIF (the drop from the front and from above, the
    verdict last) and a PNG (the tray or wheel at rest) if asked. Raises
    ``BenchError`` when the round cannot be simulated again (no such round,
    no physics plant, no design)."""
    records = readable_records(path)
    _, header = next(records)
    plants = plant_records(path, round_no)
    if not plants:
        raise BenchError(f"--round {round_no}: the journal has no plant reading for round {round_no}")
    record = plants[-1]
    # With a camera in the loop the round's reading is what the recogniser read; the physics gives the truth.
    record = {**record, **((record.get("detail") or {}).get("camera") or {}).get("truth", {})}
    from bench.play.plant import physics_plant
    plant = physics_plant(header.get("plant"))
    if plant is None:
        raise BenchError(f"--round {round_no}: plant {header.get('plant')!r} has no physics to simulate again")
    for drawing in (gif, png):
        if drawing:
            Path(drawing).parent.mkdir(parents=True, exist_ok=True)
    with session_file(header, "design", design) as design_path:
        same, told = plant.simulate_again(plant.load_design(design_path), record, gif, png)
    told = f"round {round_no}: {told}"
    return same, told + (" — the same" if same else " — DIFFERENT"), compare_twin(header.get("twin"))
