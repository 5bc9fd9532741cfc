"""A camera's reading judged against the twin's truth (``bench run --camera``
with a recogniser; docs/camera.md, "The camera in the loop").

The studio's result recognition reports what the controller is given; the
twin knows what came to rest. Where the two differ the round was decided on
a result the dice or the ball did not show: a no roll called on dice that
landed flat, or a roll sent for dice that did not (the game's no-roll
clause, 625b.2(d)(5)); faces other than those at rest (the result clause,
625b.2(d)(4): the dice at rest reveal the outcome); a pocket other than the
one the ball rests in (617c.3(e), the winning number of 617a). A round the
recogniser could not read is called by the documented policy (a no roll):
where the dice had made a roll, that call voided it, which the no-roll clause
does not allow (a no roll only when a die is not flat), so it is a violation
of 625b.2(d)(5) too, counted apart from the misreads; where the dice had not
landed flat the policy's no roll was due.

Which plant records carry such a reading is ``bench.oracle.feed.judged_camera``'s
rule, live and in replay alike.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RecognitionTally:
    """The recogniser's per-session figures, as the oracle judged them."""
    frames: int = 0               # frames whose reading (or the policy's call) went to the controller
    read: int = 0                 # ... the recogniser's reading
    right: int = 0                # ... which matched the truth
    unread: int = 0               # the policy's call: the recogniser gave no result after its re-reads
    rereads: int = 0              # frames asked again after an unread reply
    misread: int = 0              # a reading that differs from the truth (a violation)
    roll_called_no_roll: int = 0  # of the misreads: a no roll sent on dice that landed flat
    no_roll_missed: int = 0       # ... a roll sent on dice not all flat
    faces_wrong: int = 0          # ... a roll sent with faces (or a pocket) other than at rest
    truth_rolls: int = 0          # frames whose truth is a roll (or a valid spin)
    rolls_voided_unread: int = 0  # ... voided by the policy because the recogniser could not read them

    def to_json(self) -> dict:
        out = dict(self.__dict__)
        out["accuracy"] = round(self.right / self.read, 5) if self.read else None
        return out


def judge(tally: RecognitionTally, row, due_no_roll, outcome) -> list[tuple[str, str]]:
    """``(phase, message)`` for what the camera's call of ``row`` (a
    ``feed.CameraRow``) got wrong; ``due_no_roll(reading)`` is the game's
    no-roll rule and ``outcome`` its kind of outcome (``bench.rules.outcome_kind``),
    which compares a result sent with the truth. The phase names the clause
    (``result`` or ``no_roll``: only dice can be called a no roll)."""
    truth, sent = row.truth, row.sent
    tally.frames += 1
    tally.rereads += row.rereads
    truth_no_roll = bool(truth.get("flat")) and due_no_roll(truth)
    sent_no_roll = bool(sent.get("flat")) and due_no_roll(sent)
    if not truth_no_roll:
        tally.truth_rolls += 1
    where = f"frame {row.frame}" if row.frame else "the camera's frame"
    if row.call == "unread":
        tally.unread += 1
        if truth_no_roll:
            return []
        # A session whose recogniser never reads would otherwise pass with every round voided.
        tally.rolls_voided_unread += 1
        return [("no_roll", f"the recogniser could not read the frame after {row.rereads} re-reads; the policy's "
                            f"no roll voided a roll the dice made, {truth.get('dice')} ({where})")]
    tally.read += 1
    if truth_no_roll != sent_no_roll:
        tally.misread += 1
        if sent_no_roll:
            tally.roll_called_no_roll += 1
            return [("no_roll", f"the recogniser called a no roll (sent flat={sent.get('flat')}) on dice that "
                                f"landed flat, {truth.get('dice')} ({where})")]
        tally.no_roll_missed += 1
        return [("no_roll", f"the recogniser sent a roll {sent.get('dice')} on dice that did not all land flat "
                            f"(flat={truth.get('flat')}, {truth.get('dice')}): a no roll was due ({where})")]
    if truth_no_roll:
        tally.right += 1
        return []
    misread = outcome.camera_misread(truth, sent)
    if misread is not None:
        tally.misread += 1
        tally.faces_wrong += 1
        return [("result", f"{misread} ({where})")]
    tally.right += 1
    return []
