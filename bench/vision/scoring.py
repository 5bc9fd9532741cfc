"""A recogniser's readings scored against the frames' labels (``twin frames``).

Dice: each true die is matched to at most one read die, by where they are in
the image (the Hungarian assignment of ``scipy.optimize``, on the distance
from the read die's centre to the box of the true die's visible pixels, a
match only inside that box grown by half its size). Then:

- face accuracy, per die (die 1, 2, 3) and overall, over the flat dice (a
  cocked die's face does not count: the drop is no roll, 625b.2(d)(5)); a
  flat die not found is a wrong read;
- the same over the flat dice of frames that are not a no roll (the faces
  that settle wagers);
- no-roll recall (cocked dice called not flat, of the cocked dice the camera
  sees: a die under others showing less than ``HIDDEN_SHARE`` of itself
  counts apart, found when its frame is called a no roll) and
  precision (of the dice called not flat, those truly cocked), per die, and
  the same per frame (a no roll called on a frame that is one);
- a confusion table of flat dice: true face against the face read
  ("missed" when no die was found there; "cocked" when it was called not flat);
- the two figures a studio lives by, per frame as the loop would send it
  (``bench.vision.reading_calls.dice_call``): of the frames that are rolls
  (``roll_frames``), those called a no roll (``roll_frames_called_no_roll``:
  a round voided that should settle) and those whose faces, called a roll,
  would settle wagers on other faces than at rest (``rolls_settled_wrong``);
  rolls the recogniser could not read (``roll_frames_unread``) are voided by
  the loop's policy too, counted apart.

Wheel: pocket accuracy over valid spins, and a confusion of the misses.
The worst frames are those with the most wrong calls, first.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from bench.vision.reading_calls import dice_call

FACES = (1, 2, 3, 4, 5, 6)
HIDDEN_SHARE = 0.25      # a die the camera sees less than a quarter of (under others) is hidden from it


def _centre(die: dict) -> tuple[float, float] | None:
    if die.get("centre_px"):
        return tuple(die["centre_px"])
    box = die.get("box_px")
    if box and len(box) == 4:
        return (box[0] + box[2] / 2, box[1] + box[3] / 2)
    return None


def match_dice(truth: list[dict], read: list[dict]) -> list[int | None]:
    """For each true die, the index of the read die it is matched with, or None."""
    if not truth or not read:
        return [None] * len(truth)
    cost = np.full((len(truth), len(read)), 1e6)
    for i, t in enumerate(truth):
        box = t.get("box_px")
        if box:           # where it is seen (a die under another shows only a part)
            lo, hi = np.array(box[:2], float), np.array([box[0] + box[2], box[1] + box[3]], float)
        else:
            pts = np.asarray(t["outline_px"], float)
            lo, hi = pts.min(axis=0), pts.max(axis=0)
        grow = (hi - lo).max() / 2
        for j, r in enumerate(read):
            c = _centre(r)
            if c is None:
                continue
            dx = max(lo[0] - c[0], 0.0, c[0] - hi[0])
            dy = max(lo[1] - c[1], 0.0, c[1] - hi[1])
            gap = math.hypot(dx, dy)
            if gap <= grow:
                middle = (lo + hi) / 2
                cost[i, j] = gap * 100 + math.hypot(c[0] - middle[0], c[1] - middle[1])
                if t.get("visible_share", 1.0) < HIDDEN_SHARE:
                    # A die the camera hardly sees (under the die lying on it) takes a reading
                    # only if no die it can see is there to take it.
                    cost[i, j] += 1e4
    rows, cols = linear_sum_assignment(cost)
    out: list[int | None] = [None] * len(truth)
    for i, j in zip(rows, cols):
        if cost[i, j] < 1e6:
            out[i] = int(j)
    return out


@dataclass
class Score:
    scene: str
    frames: int = 0
    errors: int = 0                                      # frames the recogniser could not read (an error reply)
    flat_dice: int = 0
    flat_right: int = 0
    per_die: dict = field(default_factory=dict)          # die -> [right, flat dice]
    cocked_dice: int = 0                                 # cocked dice the camera sees (HIDDEN_SHARE or more)
    cocked_found: int = 0
    cocked_hidden: int = 0                               # cocked dice under others: only the frame's no roll counts
    cocked_hidden_frame_called: int = 0                  # ... of which the frame was called a no roll
    roll_flat_dice: int = 0                              # flat dice in frames that are not a no roll: the
    roll_flat_right: int = 0                             # faces that settle the wagers
    called_cocked: int = 0                               # read dice called not flat (matched or not)
    called_cocked_right: int = 0
    flat_called_cocked: int = 0
    no_roll_frames: int = 0
    no_roll_called: int = 0
    no_roll_called_right: int = 0
    extra_dice: int = 0                                  # read dice matched to no true die
    roll_frames: int = 0                                 # frames whose dice are a roll (not a no roll)
    roll_frames_called_no_roll: int = 0                  # ... called a no roll: voided, should settle
    roll_frames_unread: int = 0                          # ... not read (the loop's policy voids them too)
    rolls_settled_wrong: int = 0                         # ... called a roll on other faces than at rest
    confusion: Counter = field(default_factory=Counter)  # (true face, read) -> count
    spins: int = 0
    pockets_right: int = 0
    pocket_misses: Counter = field(default_factory=Counter)
    worst: list = field(default_factory=list)            # (wrong calls, image, what went wrong)
    seconds: list = field(default_factory=list)          # per frame, the recogniser's wall time

    def add(self, label: dict, reading: dict, seconds: float | None = None) -> None:
        self.frames += 1
        if seconds is not None:
            self.seconds.append(seconds)
        if "error" in reading:
            self.errors += 1
        truth = label["truth"]
        if truth.get("game") == "wheel":
            self._add_spin(label, truth, reading)
        else:
            self._add_drop(label, truth, reading)

    def _add_spin(self, label, truth, reading) -> None:
        if not truth.get("valid"):
            return
        self.spins += 1
        read = reading.get("pocket")
        if read == truth["pocket"]:
            self.pockets_right += 1
        else:
            self.pocket_misses[(truth["pocket"], read)] += 1
            self.worst.append((1, label["image"], f"pocket {truth['pocket']} read as {read}"))

    def _add_drop(self, label, truth, reading) -> None:
        dice = truth["dice"]
        read = reading.get("dice") if isinstance(reading.get("dice"), list) else []
        read = [r for r in read if isinstance(r, dict)]
        matched = match_dice(dice, read)
        wrong, hidden = [], []
        for t, j in zip(dice, matched):
            r = read[j] if j is not None else None
            called_flat = bool(r.get("flat", True)) if r is not None else None
            if t["flat"]:
                self.flat_dice += 1
                slot = self.per_die.setdefault(t["die"], [0, 0])
                slot[1] += 1
                if r is None:
                    got = "missed"
                elif not called_flat:
                    got = "cocked"
                    self.flat_called_cocked += 1
                else:
                    got = r.get("face")
                self.confusion[(t["face"], got)] += 1
                if not truth["no_roll"]:
                    self.roll_flat_dice += 1
                    self.roll_flat_right += got == t["face"]
                if got == t["face"]:
                    self.flat_right += 1
                    slot[0] += 1
                else:
                    wrong.append(f"die {t['die']} ({t['face']}, flat) read {got}")
            elif t.get("visible_share", 1.0) < HIDDEN_SHARE and r is None:
                self.cocked_hidden += 1
                hidden.append(t)
            else:
                self.cocked_dice += 1
                if r is not None and called_flat is False:
                    self.cocked_found += 1
                else:
                    wrong.append(f"die {t['die']} cocked ({t['tilt_deg']:.0f} deg, {t['holder']}) "
                                 + ("not found" if r is None else f"read flat {r.get('face')}"))
        used = {j for j in matched if j is not None}
        for j, r in enumerate(read):
            if not r.get("flat", True):
                self.called_cocked += 1
                if j in used and not dice[matched.index(j)]["flat"]:
                    self.called_cocked_right += 1
            if j not in used:
                self.extra_dice += 1
                wrong.append(f"a die read where there is none ({r.get('face')})")
        if truth["no_roll"]:
            self.no_roll_frames += 1
        said = reading.get("no_roll")
        said = bool(said) if said is not None else any(not r.get("flat", True) for r in read)
        if said:
            self.no_roll_called += 1
            self.no_roll_called_right += bool(truth["no_roll"])
            self.cocked_hidden_frame_called += len(hidden)
        elif hidden:
            wrong.append(f"{len(hidden)} cocked dice hidden under others, and the frame not called a no roll")
        if not truth["no_roll"]:
            self._add_roll(truth, reading, wrong)
        if wrong:
            self.worst.append((len(wrong), label["image"], "; ".join(wrong)))

    def _add_roll(self, truth: dict, reading: dict, wrong: list[str]) -> None:
        """A frame that is a roll, called as the loop would call it for the round."""
        self.roll_frames += 1
        faces, flat, unread = dice_call(reading, len(truth["dice"]))
        if unread is not None:
            self.roll_frames_unread += 1
        elif not all(flat):
            self.roll_frames_called_no_roll += 1
            wrong.append("a roll called a no roll")
        elif sorted(faces) != sorted(truth["faces"]):
            self.rolls_settled_wrong += 1
            wrong.append(f"a roll {list(truth['faces'])} settled as {list(faces)}")

    # -- figures ------------------------------------------------------------
    @staticmethod
    def _share(a: int, b: int) -> float | None:
        return round(a / b, 5) if b else None

    def to_json(self, worst: int = 10) -> dict:
        out = {"scene": self.scene, "frames": self.frames, "errors": self.errors}
        if self.seconds:
            out["seconds_per_frame_median"] = round(float(np.median(self.seconds)), 4)
            out["frames_per_second"] = round(1 / max(1e-9, float(np.median(self.seconds))), 2)
        if self.scene == "wheel":
            out.update(spins=self.spins, pockets_right=self.pockets_right,
                       pocket_accuracy=self._share(self.pockets_right, self.spins),
                       pocket_misses=[{"pocket": t, "read": r, "count": n}
                                      for (t, r), n in sorted(self.pocket_misses.items(), key=str)])
        else:
            out.update(
                flat_dice=self.flat_dice, flat_right=self.flat_right,
                face_accuracy=self._share(self.flat_right, self.flat_dice),
                face_accuracy_per_die={str(d): self._share(*v) for d, v in sorted(self.per_die.items())},
                roll_flat_dice=self.roll_flat_dice, roll_flat_right=self.roll_flat_right,
                roll_face_accuracy=self._share(self.roll_flat_right, self.roll_flat_dice),
                cocked_hidden=self.cocked_hidden, cocked_hidden_frame_called=self.cocked_hidden_frame_called,
                cocked_dice=self.cocked_dice, cocked_found=self.cocked_found,
                no_roll_recall=self._share(self.cocked_found, self.cocked_dice),
                called_cocked=self.called_cocked,
                no_roll_precision=self._share(self.called_cocked_right, self.called_cocked),
                flat_called_cocked=self.flat_called_cocked, extra_dice=self.extra_dice,
                no_roll_frames=self.no_roll_frames, no_roll_called=self.no_roll_called,
                frame_no_roll_recall=self._share(self.no_roll_called_right, self.no_roll_frames),
                frame_no_roll_precision=self._share(self.no_roll_called_right, self.no_roll_called),
                roll_frames=self.roll_frames, roll_frames_called_no_roll=self.roll_frames_called_no_roll,
                roll_frames_unread=self.roll_frames_unread, rolls_settled_wrong=self.rolls_settled_wrong,
                confusion=self.confusion_table())
        out["worst"] = [{"image": image, "wrong": n, "what": what}
                        for n, image, what in sorted(self.worst, key=lambda w: (-w[0], w[1]))[:worst]]
        return out

    def confusion_table(self) -> dict:
        """True face -> {read: count}, reads 1..6, "cocked", "missed", None (no face read)."""
        table: dict = {}
        for (true, got), n in sorted(self.confusion.items(), key=str):
            table.setdefault(str(true), {})[str(got)] = n
        return table
