"""The staged plan (bench.play.coverage), the physics plants' catalogue of
staged seeds (bench.play.staging) and the plant's own thread
(bench.play.plant_worker): outcome classes that vary with the seed, every
class within a session, and a link that is serviced however long the plant
takes."""

from __future__ import annotations

import json
import time

import pytest

from bench.play import plant as plants
from bench.play.plant import FairDicePlant
from bench.play.staging import Catalogue, SeedMemo, variant_start
from bench.session.runner import SessionConfig, run_session


def play(tmp_path, name: str, **kw):
    config = SessionConfig(out=str(tmp_path / name), progress=False, plant=kw.pop("plant", "dice"), **kw)
    return run_session(config)


def staged(outcome) -> list[tuple[int, str, dict]]:
    """(round, what was staged, the reading) of every staged throw, from the journal."""
    out = []
    for line in outcome.journal.read_text().splitlines():
        record = json.loads(line)
        for reading in record.get("plants") or ():
            if reading["detail"].get("staged"):
                out.append((reading["round"], reading["detail"]["staged"], reading))
    return out


def test_two_sessions_with_different_seeds_stage_different_triples_cocked_dice_and_lucky_positions(tmp_path):
    first, second = (play(tmp_path, f"s{seed}", game="lightning-dice", rounds=30, seed=seed) for seed in (1, 2))
    for outcome in (first, second):
        assert outcome.status == 0 and outcome.summary.coverage.missing() == []   # every class within 30 rounds
    triples = [[what for _, what, _ in staged(o) if len(set(what.split()[-1].split("-"))) == 1] for o in (first, second)]
    assert triples[0] and triples[1] and triples[0] != triples[1]
    cocked = [[tuple(r["flat"]) for _, what, r in staged(o) if what == "a die cocked"] for o in (first, second)]
    assert cocked[0] and cocked[1] and cocked[0] != cocked[1]
    lucky = [{k: v for k, v in o.summary.coverage.covered.items() if k.startswith("lucky-win:")} for o in (first, second)]
    assert len(lucky[0]) == 4 and lucky[0] != lucky[1]      # each listed position, covered in other rounds


def test_two_roulette_sessions_stage_different_pockets_and_say_which_numbers_they_did_not_reach(tmp_path):
    first, second = (play(tmp_path, f"r{seed}", game="lightning-roulette", rounds=30, seed=seed) for seed in (1, 2))
    pockets = [[what for _, what, _ in staged(o)] for o in (first, second)]
    assert pockets[0][:5] != pockets[1][:5]
    for outcome in (first, second):
        assert outcome.summary.coverage.covered.get("pocket:0")        # zero, on which every outside bet loses
        missing = outcome.summary.coverage.missing()
        # 37 numbers cannot all come up in 30 rounds: what is left is named, with the reason
        assert missing and all(c.kind == "pocket" and "too few" in why for c, why in missing)
        data = json.loads((tmp_path / ("r1" if outcome is first else "r2") / "summary.json").read_text())
        assert data["coverage"]["not_covered"] and data["lucky_draw"]["verdict"] == "too-short"


@pytest.mark.parametrize("game", ("sic-bo", "dice-ology"))
def test_every_class_of_the_game_is_covered_within_thirty_rounds(tmp_path, game):
    outcome = play(tmp_path, game, game=game, rounds=30, seed=7)
    assert outcome.status == 0
    assert outcome.summary.coverage.missing() == [], outcome.summary.coverage.line()


def test_a_session_too_short_for_every_class_says_what_it_did_not_cover(tmp_path):
    outcome = play(tmp_path, "short", game="lightning-dice", rounds=4, seed=3)
    line = outcome.summary.coverage.line()
    assert line.startswith("outcome classes covered: ") and "not covered" in line
    assert any("too few to stage" in why for _, why in outcome.summary.coverage.missing())


# -- the catalogue of staged seeds -----------------------------------------------------

def test_the_catalogue_sweeps_once_and_a_later_session_takes_it_from_the_memo(tmp_path):
    simulated = []

    def shows(seed):
        simulated.append(seed)
        return [f"n:{seed % 7}"] + (["odd:*"] if seed % 2 else [])

    memo = SeedMemo(tmp_path / "memo.json", shipped=None)
    wanted = [f"n:{i}" for i in range(7)] + ["odd:0", "odd:1"]
    first = Catalogue("k", 100, wanted, shows, memo)
    assert first.seed_for("n:3") == 101 and simulated == [100, 101]     # the sweep goes only as far as asked
    assert first.found["odd:0"] == 101
    assert first.seed_for("odd:1") == 103
    first.save()
    again = Catalogue("k", 100, wanted, lambda seed: pytest.fail("the memo already holds it"), memo)
    assert again.seed_for("n:3") == 101 and again.seed_for("odd:1") == 103
    assert variant_start(1)[1] != variant_start(2)[1] and variant_start(1) == variant_start(4)


def test_the_plant_sweeps_again_when_a_catalogued_seed_no_longer_shows_its_outcome(tmp_path):
    class Plant(plants.PhysicsPlant):
        name = "fake"
        wanted = ("n:0", "n:1", "n:2")

        def __init__(self):
            self.staging(0, "digest", SeedMemo(tmp_path / "m.json", shipped=None))
            self.shift = 0

        def simulate(self, seed):
            return seed + self.shift

        def shows(self, result):
            return [f"n:{result % 3}"]

    plant = Plant()
    seed, _ = plant.staged_seed("n:1")
    plant.close()
    changed = Plant()
    changed.shift = 1                   # the twin changed: the remembered seed shows n:2 now
    seed_again, result = changed.staged_seed("n:1")
    assert seed_again != seed and result % 3 == 1


# -- the link is serviced while the plant works --------------------------------------

class SlowPlant(FairDicePlant):
    """A plant that takes longer to come to rest than a controller waits for an
    ACK (2.5 s against docs/protocol.md's 4 x 0.5 s), as a physics plant does
    while it sweeps for a staged outcome it has not catalogued yet."""
    name = "slow"
    READ_S = 2.5

    def __init__(self, seed, threaded):
        super().__init__(seed)
        self.threaded = threaded

    def read(self, *args, **kwargs):
        time.sleep(self.READ_S)
        return super().read(*args, **kwargs)


@pytest.mark.parametrize("threaded", (True, False), ids=("on-its-own-thread", "on-the-links-thread"))
def test_a_controller_that_gives_up_at_the_documented_deadline_is_never_left_waiting(tmp_path, monkeypatch, threaded):
    """The emulated controller gives a frame up after 4 x 0.5 s without its
    ACK (docs/protocol.md, section 8). The plant's thread keeps the bench
    acknowledging every frame within that while the plant works; computed
    on the link's thread, the same plant leaves the RELEASE unacknowledged
    and the controller gives it up."""
    monkeypatch.setitem(plants.PLANTS, "slow", lambda design, seed: SlowPlant(seed, threaded))
    outcome = play(tmp_path, "slow", game="lightning-dice", rounds=2, seed=4, plant="slow", probes=False)
    log = (tmp_path / "slow" / "emulator.log").read_text()
    if not threaded:
        assert "not acknowledged" in log       # the controller gave the RELEASE up: what the thread prevents
        wire = [row for line in outcome.journal.read_text().splitlines() for row in json.loads(line).get("wire") or ()]
        assert any(row[0] == "rx" and row[1] == "duplicate" for row in wire)    # after sending it again
        return
    assert outcome.status == 0 and not outcome.round_failures, outcome.round_failures
    assert "not acknowledged" not in log, log
    # A frame the controller sends again is one it waited its response timeout (0.5 s) for an ACK of.
    wire = [row for line in outcome.journal.read_text().splitlines() for row in json.loads(line).get("wire") or ()]
    assert [row for row in wire if row[0] == "rx" and row[1] == "duplicate"] == []


@pytest.mark.parametrize("kind", ("tower", "wheel"))
def test_the_shipped_catalogue_of_the_standard_design_still_holds(kind, tmp_path):
    """A first session on a shipped design stages at once from
    fixtures/staged-seeds.json; a changed twin or design makes it stale
    (regenerate: benchmarks/staging_bench.py --sweeps --write
    fixtures/staged-seeds.json). Each variant is complete; every seed of the
    first still shows its outcome."""
    from bench.play.staging import VARIANTS
    made = {"tower": plants.TowerPlant, "wheel": plants.WheelPlant}[kind]
    for variant in range(VARIANTS):
        plant = made("standard", session_seed=variant, memo=SeedMemo(tmp_path / "memo.json"))
        catalogue = plant.catalogue
        assert catalogue.complete and set(catalogue.found) == set(plant.wanted), (kind, variant)
        if variant == 0:
            for key, seed in sorted(catalogue.found.items()):
                shown = plant.shows(plant.simulate(seed))
                assert key in shown or key.rsplit(":", 1)[0] + ":*" in shown, (key, seed, shown)


def test_sessions_with_different_seeds_stage_a_triple_and_a_cocked_die_from_different_drops(tmp_path):
    """On the tower a staged outcome is a real drop from the catalogue of the
    sweep the session seed picks: the same triple, another drop; a die
    cocked, another drop (and here another die)."""
    from bench.rules.outcome_classes import Throw
    triples, cocked = set(), set()
    for seed in range(3):
        plant = plants.TowerPlant("standard", session_seed=seed, memo=SeedMemo(tmp_path / "memo.json"))
        triple = plant.read(2, 0, 3, Throw(faces=(4, 4, 4)))
        assert sorted(triple.dice) == [4, 4, 4] and all(triple.flat) and triple.detail["staged"] == "faces 4-4-4"
        triples.add(triple.seed)
        no_roll = plant.read(3, 0, 3, Throw(cocked=True, pick=0))
        assert not all(no_roll.flat)
        cocked.add((no_roll.seed, no_roll.flat))
    assert len(triples) == 3 and len(cocked) == 3


# -- a catalogue that is not this twin's -----------------------------------------------

def test_a_catalogue_swept_by_another_twin_is_swept_afresh_and_one_that_names_none_is_used(tmp_path):
    memo = SeedMemo(tmp_path / "memo.json", shipped=None)
    wanted = [f"n:{i}" for i in range(3)]
    memo.put("theirs", {"next": 500, "found": {"n:0": 400}, "twin": "0" * 16})
    memo.put("unnamed", {"next": 500, "found": {"n:0": 400}})
    ours = Catalogue("theirs", 100, wanted, lambda seed: [f"n:{seed % 3}"], memo, twin="a" * 16)
    assert ours.other_twin == "0" * 16 and ours.found == {} and ours.seed_for("n:0") == 102
    ours.save()               # a shorter sweep than the one kept, but this twin's: it replaces the other's
    assert memo.get("theirs") == {"next": 103, "found": {"n:0": 102, "n:1": 100, "n:2": 101}, "twin": "a" * 16}
    unnamed = Catalogue("unnamed", 100, wanted, lambda seed: pytest.fail("the kept catalogue is used"), memo,
                        twin="a" * 16)
    assert unnamed.other_twin is None and unnamed.seed_for("n:0") == 400 and unnamed.swept_by is None


def _shown_faces(result) -> str:
    return "faces:" + "-".join(map(str, sorted(result.faces)))


def test_a_catalogued_seed_that_does_not_show_its_outcome_is_never_staged_and_the_summary_says_so(
        tmp_path, monkeypatch):
    """A catalogue (here, of a temporary memo) whose seed for a staged outcome
    shows another on this twin: the round is staged from the catalogue swept
    again, the summary says which catalogued outcome was stale, and a throw
    the sweep cannot find is named as not found, not as staged."""
    from bench.play.coverage import CoveragePlan
    from bench.play.plant import TowerPlant, file_digest
    from bench.play.staging import SWEEP_BUDGET
    from bench.rules.outcome_classes import Throw
    from twin.fingerprint import canary_of
    from twin.shipped import shipped_design
    from twin.tower import drop, load_design

    session_seed = 5
    variant, start = variant_start(session_seed)
    design = shipped_design("standard", "tower")
    shown = _shown_faces(drop(load_design(design), start))             # what the sweep's first seed shows here
    asked = next(f for f in ((1, 2, 3), (2, 3, 4), (3, 4, 5)) if "faces:" + "-".join(map(str, f)) != shown)
    asked_key = "faces:" + "-".join(map(str, asked))
    missing = (6, 6, 6) if shown != "faces:6-6-6" else (5, 5, 5)
    memo_key = f"tower:{file_digest(design)}:sweep:{variant}"
    memo = SeedMemo(tmp_path / "memo.json", shipped=None)
    # The sweep is at its end (nothing more is found) and says ``start`` shows ``asked``: it does not.
    memo.put(memo_key, {"next": start + SWEEP_BUDGET, "found": {asked_key: start}})
    monkeypatch.setitem(plants.PLANTS, "tower", lambda given, seed: TowerPlant(given or "standard", seed, memo=memo))
    plan = {2: (Throw(faces=missing),), 3: (Throw(faces=asked),)}
    monkeypatch.setattr(CoveragePlan, "stage", lambda self, session_round, lucky=(): plan.get(session_round))

    outcome = play(tmp_path, "stale", game="lightning-dice", rounds=3, seed=session_seed, plant="physics")
    assert outcome.status == 0, outcome.round_failures
    summary = json.loads((tmp_path / "stale" / "summary.json").read_text())
    assert summary["staging"]["catalogue_stale"] == [asked_key] and summary["staging"]["swept_again"] is True
    assert summary["staging"]["twin"] == canary_of("tower")
    records = [json.loads(line) for line in outcome.journal.read_text().splitlines()]
    readings = {r["round"]: r for record in records for r in record.get("plants") or ()}
    probes = {record["round"]: record.get("probe") for record in records if record.get("kind") == "round"}
    rounds = sorted(readings)
    # Round 3 was staged from the catalogue swept again, never from the seed that does not show it.
    third = readings[rounds[2]]
    assert third["seed"] != start and sorted(third["dice"]) == list(asked) and all(third["flat"])
    assert probes[rounds[2]] == "faces " + "-".join(map(str, asked))
    # Round 2's throw could not be found (the sweep was at its end): said so, not labelled as staged.
    assert probes[rounds[1]] == "faces " + "-".join(map(str, missing)) + ": not found in the staging sweep"
    kept = memo.get(memo_key)
    assert kept["found"][asked_key] == third["seed"] and kept["twin"] == canary_of("tower")


# -- coverage that is honest (issue 45, item 5) ----------------------------------------

def test_totals_3_and_18_are_covered_at_base_odds_and_the_clamped_controller_is_caught_at_every_seed():
    """``ld-total-3-18-clamped`` pays a total 3 or 18 that is not Lucky at 99
    to 1 (625b.2(f): 149 to 1), a Lucky one as announced. The plan used to
    count totals 3 and 18 as covered by a round that won them as Lucky
    Numbers, so at these seeds it never staged them at base odds and 30
    rounds let it pass; now each is covered only where (f) pays (625b.2(g)(2))."""
    from bench.session.mutation import Trial, trial
    for seed in (11, 17, 19):
        result = trial(Trial("ld-total-3-18-clamped", "lightning-dice", seed=seed, rounds=30, in_process=True))
        assert result.first_round is not None, f"seed {seed}: unseen in 30 rounds"
        assert "625b.2(f)" in result.clauses


def test_the_round_that_covers_a_total_did_not_have_it_as_a_lucky_number(tmp_path):
    outcome = play(tmp_path, "base", game="lightning-dice", rounds=30, seed=11)
    assert outcome.status == 0 and outcome.summary.coverage.missing() == []
    rounds = {r.round: r for r in outcome.oracle.rounds}
    for total in (3, 4, 17, 18):
        shown_in = rounds[outcome.summary.coverage.covered[f"total:{total}"]]
        assert sum(shown_in.outcome) == total
        assert f"total:{total}" not in {x.bet for x in shown_in.lucky}


def _drive(plan, rounds: int, plant, lucky=()):
    """Play ``plan`` for ``rounds`` rounds against ``plant(round, stage)``:
    its readings, or None for a round that does not finish. Returns each
    round's stage."""
    from bench.rules.coverage import Seen
    staged = {}
    for session_round in range(1, rounds + 1):
        stage = plan.stage(session_round, lucky)
        staged[session_round] = stage
        readings = plant(session_round, stage) if stage else [Seen(dice=(1, 2, 4), flat=(True,) * 3)]
        if readings is None:
            plan.interrupted()
        else:
            plan.observe(session_round, readings, lucky)
    return staged


def test_a_class_that_fails_to_stage_backs_off_and_is_given_up_while_the_plan_covers_the_others():
    """A Sic Bo controller that never ends a round with a die not flat: the
    cocked die is staged in rounds 2, 4 and 8 (BACKOFF ** k rounds after the
    k-th failure), then given up with the second no roll that needs it; the
    double staged behind it in round 2 is tried alone and covered, as is
    every other class."""
    from bench.play.coverage import STAGE_TRIES, CoveragePlan
    from bench.rules import describe
    from bench.rules.submission import default_rules

    plan = CoveragePlan("sic-bo", default_rules("sic-bo", describe("sic-bo").default_paytable), 7)
    staged = _drive(plan, 30, lambda r, stage: None if any(t.cocked for t in stage) else plan.judge.seen_of(stage))
    cocked = [r for r, stage in staged.items() if stage and any(t.cocked for t in stage)]
    assert cocked == [2, 4, 8] and STAGE_TRIES == 3
    assert plan.given_up == {"no-roll:1", "no-roll:2"} and plan.done
    assert set(plan.seen) == {c.id for c in plan.classes} - plan.given_up
    why = plan.unstaged()
    assert why["no-roll:1"] == "3 stagings failed (rounds 2, 4, 8 did not finish); not staged again"
    assert why["no-roll:2"] == "needs no-roll:1 first, which could not be staged"
    assert set(why) == {"no-roll:1", "no-roll:2"}        # the classes charged beside them were covered after
    charged_beside = {cid for cid, failed in plan.failures.items() if cid not in plan.given_up}
    assert charged_beside and all(len(plan.failures[cid]) == 1 for cid in charged_beside)


def test_faces_the_plant_cannot_show_are_given_up_in_its_words_and_the_plan_goes_on():
    """A physics plant whose sweep never found 6-6-6 shows an ordinary throw
    instead: triple 6 and total 18 are charged with the plant's words, tried
    three times, and the other triples and doubles are covered meanwhile."""
    from bench.play.coverage import CoveragePlan
    from bench.play.plant import Reading
    from bench.rules import describe
    from bench.rules.submission import default_rules

    plan = CoveragePlan("lightning-dice", default_rules("lightning-dice", describe("lightning-dice").default_paytable), 3)

    def plant(session_round, stage):
        throw = stage[0]
        if throw.faces == (6, 6, 6):
            return [Reading(dice=(2, 3, 5), flat=(True,) * 3,
                            detail={"staged": "faces 6-6-6: not found in the staging sweep"})]
        return list(plan.judge.seen_of(stage))

    staged = _drive(plan, 30, plant)
    sixes = [r for r, stage in staged.items() if stage and stage[0].faces == (6, 6, 6)]
    assert len(sixes) == 3 and sixes[1] >= sixes[0] + 2 and sixes[2] >= sixes[1] + 4
    assert {"triple:6", "total:18"} <= plan.given_up
    assert plan.unstaged()["total:18"].startswith(
        f"3 stagings failed (rounds {', '.join(map(str, sixes))} staged faces 6-6-6: not found in the staging sweep)")
    assert {f"triple:{f}" for f in range(1, 6)} | {f"double:{f}" for f in range(1, 7)} <= set(plan.seen)


def test_a_session_against_a_controller_that_never_ends_a_cocked_round_stages_the_others_and_says_so(tmp_path):
    """``sicbo-reshake-on-noroll`` shakes again without calling the no roll:
    every round staged with a cocked die fails (625a.5). The plan used to stage
    one in 29 of 30 rounds, covering nothing else; now it tries three times,
    covers every other class, and the summary says what it could not stage
    and why."""
    outcome = play(tmp_path, "reshake", game="sic-bo", rounds=30, seed=7, misbehave="sicbo-reshake-on-noroll")
    assert outcome.status == 1
    failed = sorted(outcome.round_failures)
    assert len(failed) == 3 and all(text.startswith("[625a.5]") for text in outcome.round_failures.values())
    account = outcome.summary.coverage
    assert {c.id for c, _ in account.missing()} == {"no-roll:1", "no-roll:2"}
    assert "could not stage: no-roll:1 (3 stagings failed (rounds 2, 4, 8 did not finish); not staged again)" \
        in account.line()
    data = json.loads((tmp_path / "reshake" / "summary.json").read_text())["coverage"]
    assert data["could_not_stage"] == ["no-roll:1", "no-roll:2"]
    why = {entry["class"]: entry["why"] for entry in data["not_covered"]}
    assert why["no-roll:2"] == "needs no-roll:1 first, which could not be staged"



def test_a_roulette_session_still_covers_a_lucky_win_at_the_first_position_now_that_it_covers_no_pocket(tmp_path):
    """A round that shows a Lucky win pays no pocket its 29 to 1, so it no
    longer counts for its pocket; at weight 1 the Lucky win at the first
    listed position then lost to the pockets left at this seed (and at 15
    and 18) for all 30 rounds. Lightning Roulette declares its Lucky wins at
    weight 2: only pockets are left, and they for want of rounds."""
    outcome = play(tmp_path, "lr8", game="lightning-roulette", rounds=30, seed=8)
    assert outcome.status == 0
    account = outcome.summary.coverage
    assert {f"lucky-win:{k}" for k in range(1, 6)} <= set(account.covered)
    assert all(c.kind == "pocket" and "too few" in why for c, why in account.missing())
