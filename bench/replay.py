"""Replay a session journal: verify its hash chain, decode every recorded frame
again from its raw bytes, and put the frames past a fresh oracle exactly as
the live link did (``bench.recorder.oracle_input``). A disputed round's drop
or spin is simulated again from its recorded seed and checked against the
recorded outcome.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from bench.errors import BenchError
from bench.journal import VerifyReport, iter_records, raw_bytes, verify_journal
from bench.oracle import Oracle
from bench.plant import file_digest
from bench.protocol import Codec, FrameError
from bench.recorder import oracle_input
from bench.rules.submission import default_rules, load_submission


@dataclass
class ReplayOutcome:
    chain: VerifyReport
    header: dict
    oracle: Oracle | None
    decode_problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return (self.chain.ok and not self.decode_problems and self.oracle is not None
                and not self.oracle.violations)


def _records(path):
    for number, record, _ in iter_records(path):
        if record is not None:
            yield number, record


def _rules_from(header: dict, notes: list[str]):
    submission = header.get("submission")
    if submission:
        if Path(submission).exists() and file_digest(submission) == header.get("submission_sha256"):
            return load_submission(submission)
        notes.append(f"submission {submission} is missing or changed since the session "
                     f"(SHA-256 {str(header.get('submission_sha256'))[:16]}…): judged by the regulation's defaults")
    return default_rules(header["game"], header.get("paytable"))


class _Judge:
    """Takes the journal's records one by one (a ``verify_journal`` visitor):
    the header sets up the oracle; each frame the oracle judged live is
    decoded again from its raw bytes and judged again."""

    def __init__(self, path):
        self.path = path
        self.header: dict | None = None
        self.oracle: Oracle | None = None
        self.codec: Codec | None = None
        self.decode_problems: list[str] = []
        self.notes: list[str] = []
        self.last_mono = None

    def __call__(self, number: int, record: dict) -> None:
        if self.header is None:
            if record.get("kind") != "session":
                raise BenchError(f"{self.path}: line {number}: not a session header (kind {record.get('kind')!r})")
            self.header = record
            self.codec = Codec(record["game"])
            self.oracle = Oracle(record["game"], _rules_from(record, self.notes),
                                 response_timeout=record.get("phases", {}).get("reply_s", 3.0))
            return
        if record.get("kind") != "frame" or not oracle_input(record.get("dir"), record.get("frame"),
                                                               record.get("message")):
            return
        line = raw_bytes(record.get("raw", "")).rstrip(b"\r\n")
        try:
            message, _ = self.codec.decode_line(line)
        except FrameError as err:
            self.decode_problems.append(f"line {number}: recorded frame does not decode: {err}")
            return
        except Exception as err:   # never let one record stop the replay
            self.decode_problems.append(f"line {number}: recorded frame does not decode: {err!r}")
            return
        if message.as_dict() != record.get("message"):
            self.decode_problems.append(f"line {number}: the decoded message differs from the recorded one")
        self.last_mono = record.get("mono")
        self.oracle.observe(record["dir"], message, self.last_mono)


def replay(path: str | Path, expected_head: str | None = None) -> ReplayOutcome:
    """Verify the chain and judge every frame again, reading the file once."""
    judge = _Judge(path)
    chain = verify_journal(path, expected_head=expected_head, visit=judge)
    if judge.header is None:
        raise BenchError(f"{path}: the journal is empty")
    judge.oracle.finish(judge.last_mono)
    return ReplayOutcome(chain, judge.header, judge.oracle, judge.decode_problems, judge.notes)


def plant_records(path: str | Path, round_no: int) -> list[dict]:
    return [record for _, record in _records(path) if record.get("kind") == "plant" and record.get("round") == round_no]


def resimulate(path: str | Path, round_no: int, gif: str | None = None) -> tuple[bool, str]:
    """Simulate round ``round_no``'s last drop or spin again from its recorded
    seed; True if the physics gives the recorded outcome. Draws a GIF if asked."""
    records = _records(path)
    _, header = next(records)
    plants = plant_records(path, round_no)
    if not plants:
        return False, f"round {round_no}: no plant record in the journal"
    record = plants[-1]
    design_path = header.get("design")
    if header.get("plant") not in ("tower", "wheel"):
        return False, f"round {round_no}: plant {header.get('plant')!r} has no physics to simulate again"
    if not design_path or not Path(design_path).exists():
        return False, f"round {round_no}: design file {design_path!r} is not here"
    if file_digest(design_path) != header.get("design_sha256"):
        return False, f"round {round_no}: design file {design_path} changed since the session (SHA-256 differs)"
    seed = record["seed"]
    if header["plant"] == "tower":
        from twin.tower import drop_traced, load_design
        design = load_design(design_path)
        loaded = record.get("detail", {}).get("loaded")
        result, trace = drop_traced(design, seed, loaded=loaded)
        same = list(result.faces) == record["dice"] and [d.flat for d in result.dice] == record["flat"]
        told = (f"round {round_no}: seed {seed}, loaded {loaded}: simulated faces {list(result.faces)} "
                f"flat {[d.flat for d in result.dice]}; recorded {record['dice']} flat {record['flat']}")
        if gif:
            from twin.tower.picture import drop_gif
            drop_gif(design, result, trace, gif)
    else:
        from twin.wheel import load_design, trace as spin_trace
        design = load_design(design_path)
        traced = spin_trace(design, seed)
        same = traced.result.number == record["pocket"]
        told = f"round {round_no}: seed {seed}: simulated pocket {traced.result.number}; recorded {record['pocket']}"
        if gif:
            from twin.wheel.picture import save_gif
            save_gif(design, traced, gif)
    return same, told + (" — the same" if same else " — DIFFERENT")


def describe(outcome: ReplayOutcome) -> str:
    lines = []
    chain = outcome.chain
    lines.append(f"hash chain: {chain.records} records, " + ("intact" if chain.ok else "BROKEN"))
    for problem in chain.problems:
        lines.append(f"  line {problem.line}: {problem.what}")
    if chain.torn_tail:
        lines.append("  the last line was cut off mid-write (a crash): that round is lost")
    if chain.incomplete_rounds:
        lines.append(f"  incomplete rounds: {', '.join(map(str, chain.incomplete_rounds))}")
    for problem in outcome.decode_problems:
        lines.append(f"  {problem}")
    for note in outcome.notes:
        lines.append(f"  note: {note}")
    oracle = outcome.oracle
    if oracle is not None:
        lines.append(f"oracle: {len(oracle.rounds)} rounds re-verified, {len(oracle.violations)} violations")
        for violation in oracle.violations[:20]:
            lines.append(f"  round {violation.round}, frame {violation.frame}: {violation.clause}: {violation.message}")
    lines.append("PASS" if outcome.passed else "FAIL")
    return "\n".join(lines)
