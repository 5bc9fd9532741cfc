"""Sealed journals: seals that a regulator checks with the bench key's
public fingerprint, and that nobody, the bench's operator included, can make
again for a part of the journal already sealed.

The hash chain (``bench.journal.chain``) finds any change, but anyone can compute
a whole chain again. A seal is a ``seal`` record in the chain: a signature
over the chain head before it (its ``prev``). A journal is sealed in epochs:

- the session takes a session key from the bench key (``bench.journal.keys``: one
  use each, certified under the long-term key's signed tree head, erased
  from the key state before it is used) and makes a fresh Ed25519 key for
  epoch 0; the session key signs a certificate of epoch 0's public key and
  the sealing interval, and is dropped. The header's ``seal`` member holds
  all of it: the long-term public key, the tree head and its signature, the
  session key with its audit path, the certificate. The header is the first
  thing sealed;
- epoch ``i``'s seal is written after the header (epoch 0), after every
  ``every``-th round record and when the journal is closed (the final seal).
  Epoch ``i``'s private key signs (``i``, the seal's ``seq`` and ``prev``, the
  wall time and epoch ``i+1``'s fresh public key, ``next``) and is then
  dropped: the key that seals epoch ``i+1`` is certified by epoch ``i``'s
  seal, and the final seal certifies none.

Epoch keys live only in the bench's memory, one at a time. Whoever takes the
machine after epoch ``i`` was sealed holds at most epoch ``i+1``'s key and
the key state of sessions not yet started: no key that can sign epoch ``i``
or anything before it, in this session or an earlier one. This is the
key-evolving construction of Bellare and Miner's forward-secure signatures
(each period's key certified by the one before and then erased), used the way
systemd's journal uses forward-secure sealing (seal at intervals, verify
offline with a key the machine no longer holds) and Certificate Transparency
signs its tree heads (RFC 6962). (Python cannot wipe the bytes of a dropped
key from memory; the key object is released, nothing more.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from bench.errors import BenchError
from bench.journal.chain import canonical_bytes
from bench.journal.keys import SCHEME, SessionKey, fingerprint, path_leads_to, raw_public, take_session, tree_head_signed

DEFAULT_EVERY = 10               # rounds an epoch
_CERTIFICATE = SCHEME.encode() + b" epoch key\x00"
_SEAL = SCHEME.encode() + b" seal\x00"


def certificate_message(session: int, epoch_key: str, start_epoch: int, every: int) -> bytes:
    return _CERTIFICATE + canonical_bytes({"session": session, "epoch_key": epoch_key,
                                           "start_epoch": start_epoch, "every": every})


def seal_message(epoch: int, seq: int, prev: str, next_key: str | None, wall: float) -> bytes:
    return _SEAL + canonical_bytes({"epoch": epoch, "seq": seq, "prev": prev, "next": next_key, "wall": wall})


class Sealer:
    """Seals one journal (``JournalWriter(sealer=...)`` asks it when a seal is
    due and has it sign). ``header``: the header's ``seal`` member."""

    def __init__(self, session_key: SessionKey, every: int = DEFAULT_EVERY):
        if every < 1:
            raise ValueError("a seal every 0 rounds")
        self.every = every
        self.epoch = 0
        self.finished = False
        self._rounds = 0
        self._key: Ed25519PrivateKey | None = Ed25519PrivateKey.generate()
        # (the next epoch's key, final) of a seal not yet written
        self._pending: tuple[Ed25519PrivateKey | None, bool] | None = None
        epoch_key = raw_public(self._key.public_key()).hex()
        self.fingerprint = fingerprint(session_key.public_key)
        self.session = session_key.index
        self.header = {
            "scheme": SCHEME, "key": session_key.public_key.hex(), "fingerprint": self.fingerprint,
            "tree": {"size": session_key.size, "root": session_key.root.hex(),
                     "signature": session_key.tree_signature.hex()},
            "session": session_key.index,
            "session_key": raw_public(session_key.private.public_key()).hex(),
            "path": [node.hex() for node in session_key.path],
            "epoch_key": epoch_key, "start_epoch": 0, "every": every,
            "certificate": session_key.private.sign(
                certificate_message(session_key.index, epoch_key, 0, every)).hex(),
        }
        # The session key has done its one job; the caller's reference is all that is left of it.

    def due(self, kind: str) -> bool:
        """After the header, and after every ``every``-th round record."""
        if self.finished:
            return False
        if kind == "session":
            return True
        if kind == "round":
            self._rounds += 1
            return self._rounds % self.every == 0
        return False

    def seal(self, seq: int, prev: str, *, final: bool = False) -> dict[str, Any]:
        """The seal record's fields for the record ``seq`` whose ``prev`` is the
        chain head, and the next epoch's key made; ``commit`` once the seal is
        in the journal drops this epoch's key (``rollback``: the seal could
        not be written, this epoch's key signs again)."""
        if self._key is None:
            raise RuntimeError("the journal's final seal is already written")
        following = None if final else Ed25519PrivateKey.generate()
        next_key = raw_public(following.public_key()).hex() if following is not None else None
        wall = round(time.time(), 6)
        signature = self._key.sign(seal_message(self.epoch, seq, prev, next_key, wall))
        self._pending = (following, final)
        return {"epoch": self.epoch, "next": next_key, "wall": wall, "signature": signature.hex()}

    def commit(self) -> None:
        if self._pending is None:       # JournalWriter.seal commits only the seal it just made
            raise RuntimeError("no seal is waiting to be committed")
        following, final = self._pending
        self._pending = None
        self._key = following          # epoch's key dropped here
        self.epoch += 1
        self.finished = final

    def rollback(self) -> None:
        self._pending = None


def sealer_for(key: str | None, every: int = DEFAULT_EVERY) -> Sealer | None:
    """A journal's sealer from the next session key of the key state ``key``
    (``bench.key``); None without a key (the journal is unsealed)."""
    if key is None:
        return None
    if every < 1:
        raise BenchError(f"--seal-every {every}: must be at least 1 round")
    return Sealer(take_session(key), every=every)


@dataclass
class SealReport:
    """What the seals of one journal show (``SealCheck``)."""
    checked: bool                          # a trusted key was given
    expected: str | None = None            # the trusted fingerprint
    sealed: bool | None = None             # the header names a key (None: no header seen)
    fingerprint: str | None = None         # the key the header names
    session: int | None = None
    sessions: int | None = None            # session keys under that key
    every: int | None = None
    epochs: int = 0                        # seals verified
    final: bool = False                    # the final seal was verified
    sealed_records: int = 0                # records covered by the last verified seal (itself included)
    unsealed_records: int = 0              # records after it
    unsealed_rounds: list[int] = field(default_factory=list)
    sealed_rounds: list[int] = field(default_factory=list)   # the first and last round the verified seals cover
    problems: list[str] = field(default_factory=list)
    seal_lines: list[int] = field(default_factory=list)    # the line of every seal record, in order

    @property
    def ok(self) -> bool:
        return not self.problems

    def epoch_at(self, line: int) -> int | None:
        """The epoch a line of a sealed journal belongs to (the seals before it)."""
        if not self.sealed:
            return None
        return sum(1 for seal in self.seal_lines if seal < line)

    def to_json(self) -> dict[str, Any]:
        return {"checked": self.checked, "expected": self.expected, "sealed": self.sealed,
                "sealed_rounds": self.sealed_rounds,
                "fingerprint": self.fingerprint, "session": self.session, "sessions": self.sessions,
                "every": self.every,
                "epochs_verified": self.epochs, "final": self.final, "sealed_records": self.sealed_records,
                "unsealed_records": self.unsealed_records, "unsealed_rounds": self.unsealed_rounds,
                "problems": list(self.problems), "ok": self.ok}


class SealCheck:
    """A ``verify_journal`` visitor: checks every seal with the trusted key
    (``expected``: a fingerprint; None reads the header's claim and checks
    nothing). The chain itself (each record's hash and ``prev``) is checked
    by ``verify_journal``: a seal fixes everything before it because it
    signs the chain head it follows."""

    def __init__(self, expected: str | None):
        self.report = SealReport(checked=expected is not None, expected=expected)
        self._key: Ed25519PublicKey | None = None   # the key the next seal must verify with
        self._epoch = 0
        self._epoch_first_line = 1
        self._records = 0
        self._broken = False
        self._end_line: int | None = None          # the session-end record's line
        self._final_seen = False                   # a seal certifying no next key (checked or not)
    def _fail(self, what: str) -> None:
        self.report.problems.append(what)
        self._broken = True
        self._key = None

    def __call__(self, number: int, record: dict) -> None:
        report = self.report
        self._records += 1
        if self._records == 1:
            self._header(record.get("seal") if record.get("kind") == "session" else None)
            return
        if record.get("kind") == "seal":
            self._seal(number, record)
            return
        if report.final and not self._broken:
            self._fail(f"line {number}: a record after the final seal (epoch {self._epoch - 1}): added afterwards")
        if record.get("kind") == "session-end" and self._end_line is None:
            self._end_line = number
        report.unsealed_records = self._records - report.sealed_records
        if record.get("kind") == "round" and isinstance(record.get("round"), int):
            report.unsealed_rounds.append(record["round"])

    def finish(self) -> SealReport:
        """After the last record. A bench writes the final seal right after the
        session-end record, so a sealed journal that has its session's end but
        not its final seal had the seal removed: everything after the last
        seal left (a losing stake raised, a round added) could have been
        rewritten with no key at all. Without its session-end the journal was
        cut short (a crash or a cut): its unsealed tail is reported as such
        and the session, cut off, fails anyway."""
        report = self.report
        if report.sealed and not self._final_seen and self._end_line is not None and not self._broken:
            after = (f"; the {report.unsealed_records} records after the last seal left"
                     + (f" ({rounds_text(report.unsealed_rounds)})" if report.unsealed_rounds else "")
                     + " could have been rewritten without any key") if report.unsealed_records else ""
            self._fail(f"line {self._end_line}: the session-end record has no final seal after it: a bench always "
                       f"writes one, so it was removed{after}")
        return report

    def _header(self, seal: Any) -> None:
        report = self.report
        report.unsealed_records = 1
        if not isinstance(seal, dict):
            report.sealed = False
            if report.checked:
                self._fail("the journal is not sealed (its header names no key), and a key was given to check it by")
            return
        report.sealed = True
        try:
            key = bytes.fromhex(seal["key"])
            report.fingerprint = fingerprint(key)
            report.session, report.every = int(seal["session"]), int(seal["every"])
            tree = seal["tree"]
            size, root, tree_signature = int(tree["size"]), bytes.fromhex(tree["root"]), bytes.fromhex(tree["signature"])
            report.sessions = size
            session_key = bytes.fromhex(seal["session_key"])
            path = [bytes.fromhex(node) for node in seal["path"]]
            epoch_key, start_epoch = str(seal["epoch_key"]), int(seal["start_epoch"])
            certificate = bytes.fromhex(seal["certificate"])
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            if report.checked:
                self._fail(f"header: seal: malformed ({type(err).__name__}: {err})")
            return
        if not report.checked:
            return
        if report.fingerprint != report.expected:
            self._fail(f"header: sealed with another key: the journal's key is {report.fingerprint}, "
                       f"not {report.expected}")
        elif not tree_head_signed(key, size, root, tree_signature):
            self._fail("header: seal.tree: the tree head's signature does not verify with the key")
        elif not path_leads_to(root, size, report.session, session_key, path):
            self._fail(f"header: seal.session_key: session key {report.session} is not in the key's signed tree")
        elif not _verifies(session_key, certificate,
                           certificate_message(report.session, epoch_key, start_epoch, report.every)):
            self._fail("header: seal.certificate: the session key did not certify this epoch key")
        else:
            try:
                self._key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(epoch_key))
            except ValueError:
                self._fail("header: seal.epoch_key: not an Ed25519 public key")
                return
            self._epoch = start_epoch

    def _seal(self, number: int, record: dict) -> None:
        report = self.report
        report.seal_lines.append(number)
        if record.get("next") is None:
            self._final_seen = True
        if report.sealed is False:
            self._fail(f"line {number}: a seal in a journal whose header names no key")
            return
        if not report.checked or self._broken:
            return
        where = f"epoch {self._epoch} (lines {self._epoch_first_line}–{number})"
        if report.final:
            self._fail(f"line {number}: a seal after the final seal: added afterwards")
            return
        try:
            epoch, seq, prev, next_key = int(record["epoch"]), int(record["seq"]), str(record["prev"]), record["next"]
            wall = record["wall"]
            signature = bytes.fromhex(record["signature"])
        except (KeyError, TypeError, ValueError) as err:
            self._fail(f"{where}: its seal at line {number} is malformed ({type(err).__name__}: {err})")
            return
        if epoch != self._epoch:
            self._fail(f"{where}: the seal at line {number} says epoch {epoch}: an epoch's records and "
                       f"seal were removed, added or reordered")
            return
        if not _verifies(self._key, signature, seal_message(epoch, seq, prev, next_key, wall)):
            self._fail(f"{where}: its seal does not verify: a record in it was changed, added or removed "
                       f"(even with the chain computed again), or the seal was forged")
            return
        try:
            self._key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(next_key)) if next_key is not None else None
        except (TypeError, ValueError):
            self._fail(f"{where}: its seal's next key is not an Ed25519 public key")
            return
        report.epochs += 1
        report.final = next_key is None
        report.sealed_records = self._records
        if report.unsealed_rounds:
            first = report.sealed_rounds[0] if report.sealed_rounds else report.unsealed_rounds[0]
            report.sealed_rounds = [first, report.unsealed_rounds[-1]]
        report.unsealed_records = 0
        report.unsealed_rounds = []
        self._epoch += 1
        self._epoch_first_line = number + 1


def rounds_text(rounds: list[int]) -> str:
    """'round 5', 'rounds 5, 6', the first twenty of many."""
    listed = ", ".join(map(str, rounds[:20])) + (f", … ({len(rounds)} rounds)" if len(rounds) > 20 else "")
    return f"round{'s' * (len(rounds) != 1)} {listed}"


def _verifies(key: bytes | Ed25519PublicKey | None, signature: bytes, message: bytes) -> bool:
    if key is None:
        return False
    try:
        public = key if isinstance(key, Ed25519PublicKey) else Ed25519PublicKey.from_public_bytes(key)
        public.verify(signature, message)
        return True
    except (InvalidSignature, ValueError):
        return False
