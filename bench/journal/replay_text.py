"""A replay's outcome in words, for a person (``bench replay``): the chain,
the frames not as recorded, the records out of place, the seals, the oracle's
verdicts and the session's ending (``bench.journal.replay`` works them out)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.journal.chain import VerifyReport
from bench.journal.seal import SealReport, rounds_text

if TYPE_CHECKING:
    from bench.journal.replay import ReplayOutcome

LISTED = 20              # failed rounds, problems of a kind, listed one by one; the rest are counted


def _more(problems, what: str) -> list[str]:
    more = getattr(problems, "more", 0)
    return [f"  … and {more} more {what}"] if more else []


def describe(outcome: ReplayOutcome) -> str:
    lines = []
    chain = outcome.chain
    lines.append(f"hash chain: {chain.records} records, " + ("intact" if chain.ok else "BROKEN"))
    for problem in chain.problems:
        epoch = outcome.seals.epoch_at(problem.line)
        lines.append(f"  line {problem.line}" + (f" (epoch {epoch})" if epoch is not None else "")
                     + f": {problem.what}")
    lines.extend(_more(chain.problems, "problems with the chain"))
    if chain.torn_tail:
        if chain.incomplete_rounds:
            lines.append("  the last line was cut off mid-write (a crash): that round is lost")
        else:
            after = (f"the round after round {chain.torn_after_round}" if chain.torn_after_round is not None
                     else "the first round")
            lines.append(f"  the last line was cut off mid-write (a crash) before it named its round: {after} "
                         "(or the session's end) is lost")
    if chain.incomplete_rounds:
        lines.append(f"  incomplete rounds: {', '.join(map(str, chain.incomplete_rounds))}")
    for problem in outcome.decode_problems:
        lines.append(f"  {problem}")
    lines.extend(_more(outcome.decode_problems, "frames that are not as recorded"))
    for problem in outcome.structure_problems:
        lines.append(f"  structure: {problem}")
    lines.extend(_more(outcome.structure_problems, "records out of place"))
    for note in outcome.notes:
        lines.append(f"  note: {note}")
    lines.extend(describe_seals(outcome.seals, outcome.chain))
    oracle = outcome.oracle
    if oracle is not None:
        lines.append(f"oracle: {len(oracle.rounds)} rounds re-verified, {oracle.violation_count} violations")
        lines.append(f"  frames decoded again from their raw bytes: {outcome.redecoded}")
        for violation in oracle.violations[:20]:
            lines.append(f"  round {violation.round}, frame {violation.frame}: {violation.clause}: {violation.message}")
        if oracle.violation_count > 20:
            lines.append(f"  … and {oracle.violation_count - 20} more: "
                         + ", ".join(f"{clause} {count}" for clause, count in
                                     sorted(oracle.violations_by_clause.items())))
    failed = sorted(outcome.failed_rounds.items())
    for round_no, failure in failed[:LISTED]:
        lines.append(f"  round {round_no} failed: {failure}")
    if len(failed) > LISTED:
        lines.append(f"  … and {len(failed) - LISTED} more failed rounds")
    lines.append(f"session: {outcome.ending}, exit status {outcome.status} as the run had"
                 + ("" if outcome.intact else "; the journal is not as the bench wrote it: exit status 1"))
    if outcome.passed and not outcome.anchors:
        lines.append("PASS, NOT ANCHORED: nothing kept apart vouches for this journal (no --head HASH; no seal "
                     "checked with --pubkey)")
    else:
        lines.append("PASS" if outcome.passed else "FAIL")
    return "\n".join(lines)


def describe_seals(seals: SealReport, chain: VerifyReport | None = None) -> list[str]:
    """The seals in words; with ``chain`` broken, what they then do not vouch for."""
    lines = _seal_lines(seals)
    if chain is not None and not chain.ok and seals.checked and seals.epochs:
        lines.append("  the seals sign the chain's recorded hashes, and the chain is BROKEN: they do not vouch "
                     "for the records that fail their hash, nor for anything after a cut")
    return lines


def _seal_lines(seals: SealReport) -> list[str]:
    if seals.sealed is False:
        return ["seals: none: the journal is unsealed (recorded without a key)"] + [f"  {p}" for p in seals.problems]
    if not seals.checked:
        return [f"seals: not checked (no --pubkey); the journal names key {seals.fingerprint}, "
                f"session {seals.session}: anyone can write that into a forged journal"]
    lines = [f"seals: key {seals.expected}, session {seals.session}: {seals.epochs} epochs verified, "
             + ("BROKEN" if seals.problems else "sealed to the end" if seals.final else "no final seal")]
    lines.extend(f"  {problem}" for problem in seals.problems)
    if seals.unsealed_records and seals.epochs:
        first, last = seals.sealed_rounds or (None, None)
        covered = f" (rounds {first}–{last})" if first is not None else ""
        rounds = seals.unsealed_rounds
        lines.append(f"  lines 1–{seals.sealed_records} verified{covered}; lines {seals.sealed_records + 1}–"
                     f"{seals.sealed_records + seals.unsealed_records} UNVERIFIED"
                     + (f" ({rounds_text(rounds)})" if rounds else "")
                     + ": not evidence, the journal has no final seal")
    return lines
