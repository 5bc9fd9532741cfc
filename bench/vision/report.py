"""The recognition report: one self-contained page on the shared frame
(``tablebench_io.report_page``): the verdict against the asked rates, where
the figures come from, the scores, the confusion table, and the worst frames
shown with the truth and the reading drawn on them."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from tablebench_io.report_page import (CAUTION, FAIL, INFO, PASS, Input, Provenance, Verdict, code, esc, figures,
                                       picture_of, report_page, utc)

TRUE_FLAT, TRUE_COCKED, READ = (40, 200, 80), (230, 40, 40), (40, 140, 255)


LABEL_PX = 16          # the labels drawn on a frame: readable at the page's width, not PIL's 10 px bitmap font


def _percent(value) -> str:
    return "–" if value is None else f"{100 * value:.2f}%"


def _of(share, count: int, unit: str) -> str:
    """'7 of 12 dice': the numerator, which the scores give only as a share of the count, recovered exactly."""
    right = 0 if share is None else round(share * count)
    return f"{right} of {count} {unit}"


def _label(draw: ImageDraw.ImageDraw, at: tuple[float, float], text: str, colour) -> None:
    """Text on a dark plate, so that it reads on any part of the frame."""
    font = ImageFont.load_default(size=LABEL_PX)
    left, top, right, bottom = draw.textbbox(at, text, font=font)
    draw.rectangle([left - 3, top - 2, right + 3, bottom + 2], fill=(0, 0, 0))
    draw.text(at, text, fill=colour, font=font)


def marked(image: bytes, label: dict, reading: dict) -> Image.Image:
    """The frame with each true die's outline (green flat, red cocked) and
    each read die's box (blue, with what was read)."""
    picture = Image.open(io.BytesIO(image)).convert("RGB")
    draw = ImageDraw.Draw(picture)
    truth = label["truth"]
    for d in truth.get("dice", []):
        if d.get("outline_px"):
            draw.polygon([tuple(p) for p in d["outline_px"]], outline=TRUE_FLAT if d["flat"] else TRUE_COCKED)
    for r in reading.get("dice", []) if isinstance(reading.get("dice"), list) else []:
        box = r.get("box_px") if isinstance(r, dict) else None
        if isinstance(box, list) and len(box) == 4:
            x, y, w, h = box
            draw.rectangle([x, y, x + w, y + h], outline=READ, width=2)
            _label(draw, (x + 3, y + 3), f"{r.get('face')}{'' if r.get('flat', True) else ' cocked'}", READ)
    ball = truth.get("ball")
    if ball and ball.get("centre_px"):
        x, y = ball["centre_px"]
        draw.ellipse([x - 12, y - 12, x + 12, y + 12], outline=TRUE_FLAT, width=2)
    if "pocket" in truth:
        _label(draw, (8, 8), f"pocket {truth['pocket']}, read {reading.get('pocket')}", (255, 255, 255))
    return picture


def write(path: str | Path, scores: dict, *, folder: str, recognizer: str, calibration_digest: str,
          required: dict, passed: bool | None, reasons: list[str], worst: list[tuple[bytes, dict, dict]],
          repeat: str = "", seeds: str = "") -> Path:
    """The page: a pass or fail when ``required`` rates were asked, else a
    measurement (info), or a caution when the recogniser left frames unanswered."""
    import time
    tower = scores["scene"] == "tower"
    cocked = (f"{_percent(scores.get('no_roll_recall'))} of cocked dice found" if scores.get("cocked_dice")
              else "no cocked die among the frames")
    headline = (f"{_percent(scores.get('face_accuracy'))} of flat dice read right, {cocked}" if tower else
                f"{_percent(scores.get('pocket_accuracy'))} of pockets read right")
    state = INFO if passed is None else PASS if passed else FAIL
    if passed is not False and scores["errors"]:
        state, reasons = CAUTION, reasons + [f"{scores['errors']} frames the recogniser did not answer"]
    key = [("frames", str(scores["frames"]))]
    if tower:
        # Per die and per frame apart, each said so: --json's no_roll_precision is per die.
        key += [("roll frames called a no roll (roll_frames_called_no_roll)",
                 f"{scores.get('roll_frames_called_no_roll')} of {scores.get('roll_frames')}"),
                ("rolls settled on wrong faces (rolls_settled_wrong)", str(scores.get("rolls_settled_wrong"))),
                ("flat dice in rolls read right", _percent(scores.get("roll_face_accuracy"))),
                ("no-roll frames found (recall, per frame)", _percent(scores.get("frame_no_roll_recall"))),
                ("dice called cocked that are (no_roll_precision, per die)", _percent(scores.get("no_roll_precision")))]
    if scores.get("frames_per_second"):
        key.append(("frames a second", str(scores["frames_per_second"])))
    provenance = Provenance(
        date=utc(time.time()), inputs=[Input("calibration", f"{folder}/calibration.json", calibration_digest)],
        seeds=esc(seeds or "the frames' own (each label names its seed)"),
        engine=f"recogniser {code(recognizer)}", repeat=repeat or f"bench recognize {folder} --recognizer ...",
        more=[("frames", esc(folder))])
    sections = ["<h2>Scores</h2>"]
    if tower:
        table = [("flat dice read right (face accuracy)", f"{scores['flat_right']} of {scores['flat_dice']}",
                  _percent(scores["face_accuracy"]))]
        for die, share in scores["face_accuracy_per_die"].items():
            table.append((f"die {die}", "", _percent(share)))
        rolls = scores.get("roll_frames") or 0
        table += [("roll frames called a no roll (roll_frames_called_no_roll: voided, should settle)",
                   f"{scores.get('roll_frames_called_no_roll')} of {rolls}",
                   _percent(scores["roll_frames_called_no_roll"] / rolls if rolls else None)),
                  ("roll frames settled on wrong faces (rolls_settled_wrong)",
                   f"{scores.get('rolls_settled_wrong')} of {rolls}",
                   _percent(scores["rolls_settled_wrong"] / rolls if rolls else None)),
                  ("roll frames not read (voided by the loop's policy)",
                   f"{scores.get('roll_frames_unread')} of {rolls}", ""),
                  ("flat dice of rolls read right (the faces that settle wagers)",
                   f"{scores['roll_flat_right']} of {scores['roll_flat_dice']}", _percent(scores["roll_face_accuracy"])),
                  ("cocked dice found (no-roll recall, 625b.2(d)(5))",
                   f"{scores['cocked_found']} of {scores['cocked_dice']}", _percent(scores["no_roll_recall"])),
                  ("cocked dice hidden under others (their frame called a no roll)",
                   f"{scores['cocked_hidden_frame_called']} of {scores['cocked_hidden']}", ""),
                  ("dice called cocked that are (no_roll_precision, per die)",
                   _of(scores["no_roll_precision"], scores["called_cocked"], "dice"), _percent(scores["no_roll_precision"])),
                  ("flat dice called cocked", str(scores["flat_called_cocked"]), ""),
                  ("no-roll frames found (frame_no_roll_recall, per frame)",
                   _of(scores["frame_no_roll_recall"], scores["no_roll_frames"], "frames"),
                   _percent(scores["frame_no_roll_recall"])),
                  ("no rolls called that are (frame_no_roll_precision, per frame)",
                   _of(scores["frame_no_roll_precision"], scores["no_roll_called"], "frames"),
                   _percent(scores["frame_no_roll_precision"])),
                  ("dice read where there is none", str(scores["extra_dice"]), ""),
                  ("frames the recogniser did not answer", str(scores["errors"]), "")]
    else:
        table = [("pockets read right", f"{scores['pockets_right']} of {scores['spins']}",
                  _percent(scores["pocket_accuracy"])),
                 ("frames the recogniser did not answer", str(scores["errors"]), "")]
    sections.append("<table><tr><th>figure</th><th>count</th><th>share</th></tr>" + "".join(
        f'<tr><td>{esc(a)}</td><td class="num">{esc(b)}</td><td class="num">{esc(c)}</td></tr>'
        for a, b, c in table) + "</table>")
    if required:
        sections.append("<p>Asked: " + esc(", ".join(f"{k} at least {_percent(v)}" for k, v in required.items()))
                        + "</p>")
    if tower:
        reads = ["1", "2", "3", "4", "5", "6", "cocked", "missed", "None"]
        head = "".join(f"<th>{esc(r if r != 'None' else 'no face')}</th>" for r in reads)
        body = "".join("<tr><th>" + esc(true) + "</th>" + "".join(
            f'<td class="num">{scores["confusion"].get(true, {}).get(r, "") or ""}</td>' for r in reads) + "</tr>"
            for true in ["1", "2", "3", "4", "5", "6"])
        sections += ["<h2>Confusion of flat dice (true face down, read across)</h2>",
                     f"<table><tr><th></th>{head}</tr>{body}</table>"]
    else:
        misses = scores.get("pocket_misses") or []
        if misses:
            sections += ["<h2>Pockets misread</h2>", "<table><tr><th>pocket</th><th>read</th><th>frames</th></tr>"
                         + "".join(f"<tr><td>{m['pocket']}</td><td>{m['read']}</td><td>{m['count']}</td></tr>"
                                   for m in misses) + "</table>"]
    sections.append("<h2>The worst frames</h2>")
    if worst:
        sections.append("<p>Outlines: the truth (green flat, red cocked); boxes: the reading (blue).</p>")
        sections.append(figures(picture_of(marked(image, label, reading),
                                           f"{label['image']}: {what}") for image, label, reading, what in
                                [(w[0], w[1], w[2], next((x['what'] for x in scores['worst']
                                                          if x['image'] == w[1]['image']), '')) for w in worst]))
    else:
        sections.append("<p>None: every frame read right.</p>")
    path = Path(path)
    path.write_text(report_page(kind="recognition report", title=f"recognition scores: {scores['scene']}",
                                heading=f"A recogniser scored: {scores['scene']}",
                                verdict=Verdict(state, headline, reasons, key), provenance=provenance,
                                sections=["\n".join(sections)]), encoding="utf-8")
    return path
