"""The head of a session's page (``bench.report.page``): the verdict box
(pass, caution or fail, its reasons and figures, and what vouches for the
journal) and the provenance block (inputs, seeds, engine, the command that
judges it again, the camera, when replay ran). Kept apart from the page's
body (``bench.report.page``: the findings, rounds, return and latencies), which
it does not need: what a reader takes in first is read, and checked, on its
own. The game's title, percentages and round lists are here for both."""

from __future__ import annotations

from bench.errors import RulesError
from bench.journal.replay_text import describe_seals
from bench.report.findings import findings
from bench.report.message_text import message_text
from bench.report.session_facts import ROUNDS_SHOWN, SessionFacts
from bench.rules import describe
from tablebench_io.report_page import CAUTION, FAIL, PASS, Input, Provenance, Verdict, code, esc, file_input, utc

ROUNDS_OF_A_KIND = ROUNDS_SHOWN   # failed, voided or no-roll rounds listed one by one; the rest are counted


def game_title(game: str) -> str:
    """The game's name for people; a journal's unknown game by its own name."""
    try:
        return describe(game).display_name
    except (RulesError, KeyError, TypeError):
        return str(game)


def percent(x) -> str:
    return "n/a" if x is None else f"{100 * float(x):.2f}%"


def rounds_listed(numbers: list[int]) -> str:
    """Round numbers, the first ROUNDS_OF_A_KIND of them."""
    shown = ", ".join(map(str, numbers[:ROUNDS_OF_A_KIND]))
    return shown + (f", … ({len(numbers)} in all)" if len(numbers) > ROUNDS_OF_A_KIND else "")


def sealed_before_cut(facts: SessionFacts) -> str | None:
    """A journal only cut off (one problem, the cut), whose seals verified:
    the lines (and rounds) they still vouch for, before the cut; else None."""
    chain, seals = facts.replayed.chain, facts.replayed.seals
    cut = chain.torn_tail or not chain.ended
    if not (not chain.ok and cut and len(chain.problems) == 1 and seals.checked and seals.epochs
            and not seals.problems and seals.sealed_records):
        return None
    first, last = seals.sealed_rounds or (None, None)
    return f"lines 1\u2013{seals.sealed_records}" + (f" (rounds {first}\u2013{last})" if first is not None else "")


def anchor_words(facts: SessionFacts) -> str:
    """What vouches for the journal, in words (the verdict box and the JSON)."""
    anchors, chain = facts.replayed.anchors, facts.replayed.chain
    if not chain.ok:
        # The head hash and the seals stand on the chain: broken, it vouches for nothing after the break.
        sealed = sealed_before_cut(facts)
        if sealed:
            return f"the bench key's seals for {sealed} only; nothing after them: the hash chain is BROKEN, cut off"
        return "nothing: the hash chain is BROKEN, so neither a head hash nor a seal vouches for it"
    if "head" in anchors and "seal" in anchors:
        return "the head hash kept apart and the bench key's seals"
    if "head" in anchors:
        return "the head hash kept apart"
    if "seal" in anchors:
        return "the bench key's seals, to the end"
    return "nothing kept apart: no head hash given, no seal checked"


def session_verdict(facts: SessionFacts) -> Verdict:
    s, r = facts.summary, facts.replayed
    reasons = []
    if not r.chain.ok:
        count = len(r.chain.problems)
        how = "cut off" if r.chain.torn_tail or not r.chain.ended else "changed"
        reasons.append(f"the journal's hash chain is BROKEN ({count} problem{'s' * (count != 1)}): it was {how}")
    if r.decode_problems:
        bad = len(r.decode_problems)
        reasons.append(f"{bad} recorded frame{'s' * (bad != 1)} {'do' if bad != 1 else 'does'} not decode as recorded")
    if s.violation_count:
        clauses = len(s.violations_by_clause)
        found = findings(s.violations)
        count = s.violation_count
        among = " among the first kept of each clause" if count > len(s.violations) else ""
        reasons.append(f"{count} violation{'s' * (count != 1)} of "
                       f"{clauses} clause{'s' * (clauses != 1)} ({len(found)} distinct finding"
                       f"{'s' * (len(found) != 1)}{among}): "
                       + ", ".join(f"{c} ({n})" for c, n in s.violations_by_clause.most_common()))
    if facts.failures:
        reasons.append(f"{len(facts.failures)} round{'s' * (len(facts.failures) != 1)} failed: "
                       + rounds_listed(sorted(facts.failures)))
    title = game_title(s.game)
    probes = len(s.probe_rounds)
    rounds = f"{s.rounds} settled" + (f", {probes} of them staged probes" if probes else "")
    figures = [("rounds", rounds)]
    scenarios = len(set(facts.scenarios.values()))
    if facts.pytest_run:
        figures.insert(0, ("scenarios played", str(scenarios)))
    found_words = ("none" if not s.violation_count else
                   f"{s.violation_count:,} of {len(s.violations_by_clause)} clause"
                   f"{'s' * (len(s.violations_by_clause) != 1)}")
    if not r.intact:      # found in frames nobody vouches for: never a plain "none"
        clauses = len(s.violations_by_clause)
        found_words = ("none found" if not s.violation_count else
                       f"{s.violation_count:,} found ({clauses} clause{'s' * (clauses != 1)})")
        found_words += ", in a journal that is not as the bench wrote it"
    figures.append(("violations", found_words))
    if s.observed_rtp is not None:
        figures.append(("observed return", f"{percent(s.observed_rtp)} (exact {percent(s.expected_rtp)})"))
    figures.append(("journal vouched for by", anchor_words(facts)))
    if not facts.passed:
        what = f"{scenarios} scenarios" if facts.pytest_run else f"{s.rounds} rounds settled"
        return Verdict(FAIL, f"FAIL: {title}, {what}", reasons, figures)
    every = f"{s.rounds} {title} rounds, every frame compliant"
    if not r.anchors:
        reasons.append("no head hash kept apart was given (bench replay --head HASH) and no seal was checked "
                       "(--pubkey): a journal rewritten with its hash chain computed again would read the same")
        return Verdict(CAUTION, f"PASS, NOT ANCHORED: {every}", reasons, figures)
    return Verdict(PASS, f"PASS: {every}", reasons, figures)


def _recorded_by(header: dict) -> str:
    """The software that recorded the session, as its header says (``versions``
    since the header has carried them; the ``software`` name before)."""
    versions = header.get("versions") or {}
    names = (("tablebench", "tablebench "), ("pybullet", "PyBullet "), ("python", "Python "))
    found = [f"{label}{versions[key]}" for key, label in names if versions.get(key)]
    return ", ".join(found) or str(header.get("software") or "not recorded")


def _inputs(facts: SessionFacts) -> list[Input]:
    h, chain = facts.header, facts.replayed.chain
    if facts.expected_head:
        if chain.head != facts.expected_head:
            head_note = f"(does NOT match the head hash kept apart, {facts.expected_head})"
        elif chain.ok:
            head_note = "(matches the head hash kept apart)"
        else:     # the last record's hash is as kept apart, and records before it do not match theirs
            head_note = ("(the same as the head hash kept apart, but records before it do not match their "
                         "hashes: the chain is BROKEN)")
    else:
        head_note = "(not checked against a head hash kept apart: bench replay --head HASH)"
    found = [Input("journal", facts.journal, chain.head, "head hash", esc(head_note))]
    if h.get("design"):
        found.append(file_input(f"design (a {h.get('plant') or 'plant'})", h["design"], h.get("design_sha256"),
                                "tower", "wheel"))
    if h.get("submission"):
        found.append(file_input("rules submission", h["submission"], h.get("submission_sha256"), "submission"))
    else:
        found.append(Input("rules submission", "none: judged by the regulation's defaults"))
    if h.get("game_file"):
        found.append(file_input("game file", h["game_file"], h.get("game_file_sha256"), "game"))
    return found


def _seeds(facts: SessionFacts) -> str:
    h = facts.header
    if h.get("seed") is not None:
        return (f"session seed {code(h['seed'])}: the Lucky Numbers' and every drop's or spin's seed follow from "
                "it; each round's is in the journal")
    told = (facts.hello or {}).get("seed")
    if facts.pytest_run:
        return ("none of the bench's: each scenario gives its own readings"
                + (f"; the controller's Lucky Numbers: its HELLO says seed={esc(told)}" if told is not None else ""))
    return "not recorded"


def runner_words(facts: SessionFacts) -> str:
    """What recorded the journal: bench run, a pytest run, or bench monitor (a tap's traffic)."""
    if facts.pytest_run:
        return "a pytest run (pytest --controller)"
    if facts.header.get("monitor") is not None:
        return "bench monitor (the traffic heard on a tap)"
    return "bench run"


def _engine(facts: SessionFacts) -> str:
    h = facts.header
    if facts.pytest_run:
        return esc(f"{h.get('runner') or 'pytest --controller'}: the regulation scenarios played on the link "
                   "(bench.scenarios.plugin), every frame judged by the oracle as it passed")
    if h.get("monitor") is not None:
        part = h["monitor"].get("part") if isinstance(h["monitor"], dict) else None
        return esc("bench monitor: the traffic between a table's host and its controller, heard on a tap"
                   + (f" (journal part {part})" if part is not None else "")
                   + "; no plant and no clock of the bench's: every frame judged by the oracle as it was heard")
    recorded = str(h.get("plant") or "not recorded")
    plant = {"tower": "the PyBullet tower twin", "wheel": "the PyBullet wheel twin",
             "dice": "fair throws from a seeded RNG (--plant dice), no physics",
             "recorded": "outcomes recorded beforehand"}.get(recorded, recorded)
    clock = "the wall clock (--realtime)" if h.get("realtime") else "virtual time (simpy)"
    return esc(f"bench run: plant {plant}, the round cycle in {clock}; every frame judged by the oracle")


def _controller(h: dict) -> str:
    return esc(f"{h.get('controller')}" + (" (the emulated controller" + (
        f", misbehaving: {h['misbehave']})" if h.get("misbehave") else ")") if h.get("emulated") else ""))


def repeat_command(facts: SessionFacts) -> str:
    """The command that judges the journal again and writes this page."""
    return f"{verify_command(facts, asked_only=True)} --report report.html"


def verify_command(facts: SessionFacts, asked_only: bool = False) -> str:
    """The command that verifies the journal again, with everything that
    vouches for it: the head hash kept apart and, for a sealed journal, the
    bench key (the fingerprint checked, or the key's file to be had from the
    bench). ``asked_only``: only what this page's judging was given."""
    check = (f" --head {facts.expected_head}" if facts.expected_head
             else "" if asked_only else " --head $(cat session.head)")
    seals = facts.replayed.seals
    if seals.checked and seals.expected:
        check += f" --pubkey {seals.expected}"
    elif seals.sealed and not asked_only:
        check += " --pubkey bench.pub"      # never the fingerprint the journal claims for itself
    return f"bench replay {facts.journal}{check}"


def session_provenance(facts: SessionFacts) -> Provenance:
    h, chain = facts.header, facts.replayed.chain
    more = [
        ("game", esc(f"{game_title(h['game'])} ({h['game']}), "
                     f"paytable {h.get('paytable') or 'the regulation’s'}"
                     + (", options " + ", ".join(f"{k}={v}" for k, v in sorted((h.get('options') or {}).items()))
                        if h.get("options") else ""))),
        ("recorded by", esc(_recorded_by(h))),
        ("hash chain", f"{chain.records} records, "
                    + ("intact" if chain.ok else "<b class=fail>BROKEN</b>")
                    + ("" if chain.ended else ", <b>cut off before its session-end record</b>")),
        ("seals", esc("; ".join(line.strip() for line in describe_seals(facts.replayed.seals, chain))
                      .removeprefix("seals: "))),
        ("controller", _controller(h)),
        ("controller's HELLO", code(message_text(facts.hello)) if facts.hello else "none recorded"),
        ("phases", esc(", ".join(f"{k.removesuffix('_s')} {v:g} s" for k, v in (h.get("phases") or {}).items()))),
    ]
    if isinstance(h.get("camera"), dict):
        more.append(("camera", esc(_camera_words(h["camera"], getattr(facts.replayed.oracle, "camera", None)))))
    if facts.replayed_at is not None:
        more.insert(0, ("replayed", esc(_replay_words(facts))))
        more.insert(1, ("journal written by", esc(runner_words(facts))))
    recorded = f"{utc(facts.first_wall)} to {utc(facts.last_wall)}"
    date = recorded if facts.replayed_at is None else f"recorded {recorded}; replayed {utc(facts.replayed_at)}"
    return Provenance(date=date, inputs=_inputs(facts),
                      seeds=_seeds(facts), engine=_engine(facts), repeat=repeat_command(facts), more=more)


def _camera_words(camera: dict, tally) -> str:
    """bench run --camera: the camera, the recogniser and its scores this session (docs/camera.md)."""
    said = (f"frames in {camera.get('frames')}, variation {camera.get('level')}, "
            f"camera {camera.get('camera') or 'the design’s'}")
    if not camera.get("recognizer"):
        return said + "; no recogniser: the twin's reading was sent"
    said += f"; recogniser {camera.get('recognizer_command') or camera.get('recognizer')}"
    if tally is None or not tally.frames:
        return said + "; no reading judged"
    return (said + f"; {tally.frames} frames: {tally.right} read right, {tally.misread} misread (violations: "
            f"{tally.roll_called_no_roll} rolls called a no roll, {tally.no_roll_missed} no rolls sent as rolls, "
            f"{tally.faces_wrong} wrong faces or pockets), {tally.unread} unread after {camera.get('rereads')} "
            f"re-reads (the policy's call: a no roll; violations: {tally.rolls_voided_unread} rolls it voided, "
            f"625b.2(d)(5)), {tally.rereads} re-reads in all")


def _replay_words(facts: SessionFacts) -> str:
    """When bench replay ran and what it verified, in one line."""
    r = facts.replayed
    checked = [f"the hash chain ({r.chain.records:,} records: {'intact' if r.chain.ok else 'BROKEN'})"]
    if facts.expected_head:
        checked.append("the head hash kept apart" + ("" if r.chain.head == facts.expected_head else " (NOT matched)"))
    if r.seals.checked:
        checked.append(f"the seals with key {r.seals.expected}" + ("" if r.seals.ok else " (BROKEN)"))
    rounds = len(r.oracle.rounds) if r.oracle is not None else 0
    checked.append(f"every frame of {rounds:,} rounds judged again by the oracle"
                   + (f", {r.redecoded:,} of them decoded again from their raw bytes" if r.redecoded else ""))
    return f"by bench replay at {utc(facts.replayed_at)}: " + "; ".join(checked)
