"""A replayed journal's page says only what its data shows (issue 41): one
sealed 8-round dice session (seconds), replayed three ways, each with the
head hash kept apart and the bench key's fingerprint:

- intact: a pass, vouched for by both, and the page says it is a replay,
  when it ran and what it verified;
- one payout's byte changed in the raw frame of round 6 (the recorded
  message beside it left as it was): the chain is broken, so the oracle
  judges the raw bytes (a changed payout never reads as compliant), the
  seals vouch for nothing, "violations" is never a green "none" and the head
  hash, the same as the one kept apart, is not said to differ from it;
- cut off two thirds of the way through: the head differs and both are
  shown, the break is a cut, not a change.

Each read in headless Chromium at 420 and 1400 px: the verdict in the first
screen, nothing cut off, the box saying what the browser shows of it.

Every page's "verify again" command keeps the key (``--pubkey``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from headless_chromium import CHROMIUM, SCREEN_HEIGHT, Chromium

SETTLED = "SETTLE round=6 id=r6c2 returned=20000"      # seed 5's sixth round: a 1-to-1 win of 10,000


def _bench(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=dict(os.environ, XDG_CACHE_HOME=str(cwd / "cache")))


def _text(page: str) -> str:
    """The page's words as a reader sees them (tags, styles and pictures left out)."""
    page = re.sub(r"<(style|script)[^>]*>.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page)))


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("replays")
    done = _bench("key", "new", tmp / "key", cwd=tmp)
    assert done.returncode == 0, done.stderr
    fingerprint = re.search(r"sha256:[0-9a-f]{64}", _bench("key", "show", tmp / "key" / "bench.pub", cwd=tmp).stdout)
    assert fingerprint
    done = _bench("run", "--rounds", "8", "--seed", "5", "--plant", "dice", "--submission", "lightning-dice",
                  "--key", tmp / "key" / "bench.key", "--seal-every", "4", "--out", tmp / "s",
                  cwd=tmp)
    assert done.returncode == 0, done.stdout + done.stderr
    journal = tmp / "s" / "session.jsonl"
    data = journal.read_text()
    assert data.count(SETTLED) == 1
    (tmp / "tampered.jsonl").write_text(data.replace(SETTLED, SETTLED.replace("=20000", "=30000")))
    (tmp / "cut.jsonl").write_bytes(journal.read_bytes()[:len(data) * 2 // 3])
    head = (tmp / "s" / "session.head").read_text().strip()
    made = {}
    for name, path in (("intact", journal), ("tampered", tmp / "tampered.jsonl"), ("cut", tmp / "cut.jsonl")):
        done = _bench("replay", path, "--head", head, "--pubkey", fingerprint.group(0), "--report",
                      tmp / f"{name}.html", cwd=tmp)
        page = (tmp / f"{name}.html").read_text(encoding="utf-8")
        made[name] = {"done": done, "page": page, "text": _text(page)}
    return {"made": made, "head": head, "pubkey": fingerprint.group(0), "run": (tmp / "s" / "report.html")}


def _figure(page: str, name: str) -> str:
    found = re.search(rf"<dt>{re.escape(name)}</dt><dd>([^<]*)</dd>", page)
    assert found, name
    return unescape(found.group(1))


def test_a_replay_page_says_it_is_a_replay_when_it_ran_and_what_it_verified(replays):
    intact = replays["made"]["intact"]
    assert intact["done"].returncode == 0, intact["done"].stdout
    text = intact["text"]
    assert "Replay of a session: Lightning Dice" in text and "PASS: 8 Lightning Dice rounds" in text
    date = re.search(r"recorded (\S+ \S+ UTC) to \S+ \S+ UTC; replayed (\S+ \S+ UTC)", text)
    assert date and date.group(2) >= date.group(1)
    assert f"the head hash kept apart; the seals with key {replays['pubkey']}" in text
    assert "every frame of 8 rounds judged again by the oracle" in text
    assert _figure(intact["page"], "journal vouched for by") == "the head hash kept apart and the bench key's seals"
    # The run's own page is not a replay.
    run = _text(replays["run"].read_text(encoding="utf-8"))
    assert "Session: Lightning Dice" in run and "replayed" not in run


def test_a_changed_byte_is_judged_on_the_bytes_and_never_reads_as_compliant(replays):
    tampered = replays["made"]["tampered"]
    said = tampered["done"].stdout
    assert tampered["done"].returncode == 1
    assert re.search(r"hash chain: \d+ records, BROKEN", said), said
    assert re.search(r"oracle: 8 rounds re-verified, [1-9]\d* violations", said), said
    assert "every frame was decoded again from its raw bytes" in said
    assert "bad CRC" in said                                        # the changed frame no longer checks


def test_a_tampered_journals_page_does_not_contradict_itself(replays):
    page, text = replays["made"]["tampered"]["page"], replays["made"]["tampered"]["text"]
    assert 'data-verdict="fail"' in page
    vouched = _figure(page, "journal vouched for by")
    assert "seal" not in vouched.split(":")[0] and "BROKEN" in vouched      # not "the bench key's seals, to the end"
    assert _figure(page, "violations") != "none" and "not as the bench wrote it" in _figure(page, "violations")
    assert "<p class=pass>None" not in page                                # no green "None" for a changed journal
    head = replays["head"]
    assert f"{head} (the same as the head hash kept apart, but records before it do not match" in text
    assert "does NOT match" not in text
    assert "they do not vouch for the records that fail their hash" in text
    assert re.search(rf"bench replay \S*tampered\.jsonl --head {head} --pubkey {replays['pubkey']}", text)


def test_a_cut_off_journals_page_shows_both_heads_and_says_cut_off(replays):
    page, text = replays["made"]["cut"]["page"], replays["made"]["cut"]["text"]
    assert replays["made"]["cut"]["done"].returncode == 1
    assert "it was cut off" in text and "it was changed" not in text
    assert f"(does NOT match the head hash kept apart, {replays['head']})" in text
    assert _figure(page, "violations").startswith("none found, in a journal that is not as the bench wrote it")
    assert f"--pubkey {replays['pubkey']}" in text.split("To verify it again")[1]


def test_a_cut_off_journals_box_says_what_its_seals_still_vouch_for_as_its_seals_row_does(replays):
    """Cut off after two of its seals: the seals row says lines 1-7 (rounds 1-4) are verified, so the box
    does not say that nothing vouches for any of it; and nothing after the cut."""
    page, text = replays["made"]["cut"]["page"], replays["made"]["cut"]["text"]
    verified = re.search(r"lines 1–(\d+) verified \(rounds (\d+)–(\d+)\)", text)
    assert verified, text
    lines, first, last = verified.groups()
    assert _figure(page, "journal vouched for by") == (
        f"the bench key's seals for lines 1–{lines} (rounds {first}–{last}) only; nothing after them: "
        "the hash chain is BROKEN, cut off")
    assert (f"None found, but the journal is not as the bench wrote it (see The journal, below): only the frames "
            f"of lines 1–{lines} (rounds {first}–{last}) are vouched for, by the bench key's seals") in text


def test_a_changed_journals_violations_show_the_frames_the_oracle_judged_not_the_one_before(replays):
    """The changed frame no longer decodes, so the oracle never saw it: the frames after it are one earlier
    in the oracle's count, and each card shows the oracle's frame (a SETTLED for "SETTLED but ..."), the
    round's list not the changed frame's recorded message as if it were judged."""
    text = replays["made"]["tampered"]["text"]
    card = re.search(r"frame (\d+): SETTLED but wager r6c2 was never settled frame direction message \(decoded\) "
                     r"bytes on the wire time (\d+) controller → bench (\S+)", text)
    assert card and card.group(1) == card.group(2) and card.group(3) == "SETTLED", card and card.groups()
    cleared = re.search(r"frame (\d+): table cleared with wager\(s\) r6c2 unsettled.{0,120}?controller → bench (\S+)",
                        text)
    assert cleared and cleared.group(2) == "CLEARED", cleared and cleared.groups()
    judged = text.split("every frame the oracle judged in round 6")[1].split("Failed, voided")[0]
    assert "SETTLE round=6 id=r6c1 returned=0" in judged and "id=r6c2 returned=" not in judged


def test_a_dice_plant_session_names_its_plant_in_words(replays):
    assert ("bench run: plant fair throws from a seeded RNG (--plant dice), no physics, the round cycle"
            in replays["made"]["intact"]["text"])


def test_money_on_the_page_has_its_digits_grouped(replays):
    page = replays["made"]["intact"]["page"]
    amounts = re.findall(r"<td class=num>([\d,]+)</td>", page)
    assert any(len(a) > 5 for a in amounts)
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", a) for a in amounts), [a for a in amounts if "," not in a][:5]
    assert re.search(r"staked \d{1,3}(,\d{3})+ and returned", page)


def test_the_three_pages_show_their_verdict_first_and_fit_at_420_and_1400_px(replays):
    assert CHROMIUM.exists(), f"no headless browser: {CHROMIUM} is missing (apt-get install chromium)"
    with Chromium() as browser:
        for name, made in replays["made"].items():
            path = Path(re.search(r"report: (\S+)", made["done"].stdout).group(1))
            for width in (420, 1400):
                tab = browser.open(path, width)
                m = tab.measure()
                shown = tab.evaluate("document.getElementById('verdict').innerText")
                tab.close()
                where = f"{name} at {width} px: {m}"
                assert m["verdict"]["bottom"] <= SCREEN_HEIGHT and not m["sticking_out"], where
                assert m["page_width"] <= width, where
                if name != "intact":           # what the box says, as the browser lays it out
                    assert "BROKEN" in shown and "vouched for by" in shown and "seals, to the end" not in shown
