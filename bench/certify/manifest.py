"""The dossier sealed: every file's SHA-256 in ``manifest.json``, signed with
the bench key in ``manifest.sig``, and the check of both (``--verify``).

The signature is made as a journal's seal is (bench.journal.keys): the next
session key of the bench key signs the manifest's digest, and the signature
file carries that session key with its audit path to the tree head the
long-term key signed when it was made. Anyone holding the key's fingerprint
checks the whole without any secret: the tree head against the long-term
key, the session key's path to it, the manifest against the session key,
then every file against the manifest and every journal inside against its
own chain, head and seals. Nothing is trusted that the dossier says about
itself: the long-term key is the one the verifier names.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from bench.journal import keys
from bench.journal.chain import verify_journal
from bench.journal.seal import SealCheck

MANIFEST, SIGNATURE = "manifest.json", "manifest.sig"
SIGNED = keys.SCHEME.encode() + b" certification dossier\x00"
NOT_LISTED = frozenset({MANIFEST, SIGNATURE, ".certify.lock"})     # the seal itself; the lock of a running certify
CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def dossier_files(folder: Path) -> list[str]:
    """Every file of the dossier (relative, '/'-separated, sorted), the seal and the lock apart."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            relative = Path(root, name).relative_to(folder).as_posix()
            if relative not in NOT_LISTED:
                found.append(relative)
    return sorted(found)


def write_manifest(folder: Path, plan_digest: str, key: str | None) -> dict:
    """manifest.json, and manifest.sig when there is a key; returns the manifest."""
    from bench.certify.runner import write_atomically
    manifest = {"manifest": 1, "plan_sha256": plan_digest,
                "files": {name: sha256_of(folder / name) for name in dossier_files(folder)}}
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    write_atomically(folder / MANIFEST, text)
    signature = folder / SIGNATURE
    if key is None:
        signature.unlink(missing_ok=True)
        return manifest
    session = keys.take_session(key)
    digest = hashlib.sha256(text.encode()).digest()
    sealed = {"scheme": keys.SCHEME, "key": session.public_key.hex(), "fingerprint": keys.fingerprint(session.public_key),
              "tree": {"size": session.size, "root": session.root.hex(), "signature": session.tree_signature.hex()},
              "session": session.index, "session_key": keys.raw_public(session.private.public_key()).hex(),
              "path": [node.hex() for node in session.path], "manifest_sha256": digest.hex(),
              "signature": session.private.sign(SIGNED + digest).hex()}
    write_atomically(signature, json.dumps(sealed, indent=1, sort_keys=True) + "\n")
    return manifest


@dataclass
class Verification:
    problems: list[str] = field(default_factory=list)
    files: int = 0
    journals: int = 0
    sealed_journals: int = 0
    fingerprint: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def _signature_problems(folder: Path, trusted: str, manifest_bytes: bytes) -> list[str]:
    try:
        sealed = json.loads((folder / SIGNATURE).read_text(encoding="utf-8"))
        public = bytes.fromhex(sealed["key"])
        tree = sealed["tree"]
        size, root, tree_signature = int(tree["size"]), bytes.fromhex(tree["root"]), bytes.fromhex(tree["signature"])
        session, session_key = int(sealed["session"]), bytes.fromhex(sealed["session_key"])
        path = [bytes.fromhex(node) for node in sealed["path"]]
        signature = bytes.fromhex(sealed["signature"])
    except FileNotFoundError:
        return [f"{SIGNATURE}: removed (or the dossier was never signed): nothing says who filed it"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        return [f"{SIGNATURE}: not a dossier signature ({type(err).__name__}: {err})"]
    if keys.fingerprint(public) != trusted:
        return [f"{SIGNATURE}: signed with the bench key {keys.fingerprint(public)}, not the trusted {trusted}"]
    if len(public) != 32 or not keys.tree_head_signed(public, size, root, tree_signature):
        return [f"{SIGNATURE}: tree: the key's tree head is not signed by the trusted key"]
    if not keys.path_leads_to(root, size, session, session_key, path):
        return [f"{SIGNATURE}: session {session}: its key is not one of the bench key's session keys"]
    digest = hashlib.sha256(manifest_bytes).digest()
    try:
        Ed25519PublicKey.from_public_bytes(session_key).verify(signature, SIGNED + digest)
    except (InvalidSignature, ValueError):
        return [f"{MANIFEST}: changed: its signature in {SIGNATURE} does not verify"]
    return []


def _journals(folder: Path, listed: list[str]) -> list[str]:
    """The journals among the files: a .jsonl whose first record opens a session."""
    found = []
    for name in listed:
        if not name.endswith(".jsonl"):
            continue
        try:
            with open(folder / name, "rb") as handle:
                first = handle.readline(1 << 20)
        except OSError:
            continue
        if first.startswith(b'{"hash":') and b'"kind":"session"' in first:
            found.append(name)
    return found


def verify(folder: Path, pubkey: str) -> Verification:
    """Everything ``--verify`` checks; each problem names the file and what was done to it."""
    result = Verification()
    trusted = keys.trusted_fingerprint(pubkey)
    result.fingerprint = trusted
    try:
        manifest_bytes = (folder / MANIFEST).read_bytes()
        manifest = json.loads(manifest_bytes)
        files = manifest["files"]
        if not isinstance(files, dict):
            raise TypeError("files is not a mapping")
    except FileNotFoundError:
        result.problems.append(f"{MANIFEST}: removed: the dossier has no manifest to check it by")
        return result
    except (OSError, ValueError, KeyError, TypeError) as err:
        result.problems.append(f"{MANIFEST}: not a dossier manifest ({type(err).__name__}: {err})")
        return result
    result.problems += _signature_problems(folder, trusted, manifest_bytes)
    present = set(dossier_files(folder))
    for name, digest in sorted(files.items()):
        if name not in present:
            result.problems.append(f"{name}: removed")
        elif sha256_of(folder / name) != digest:
            result.problems.append(f"{name}: changed (SHA-256 is not the manifest's)")
    result.problems += [f"{name}: added (not in the manifest)" for name in sorted(present - set(files))]
    result.files = len(files)
    for name in _journals(folder, sorted(present & set(files))):
        result.journals += 1
        head_file = (folder / name).with_suffix(".head")
        head = head_file.read_text(encoding="utf-8").strip() if head_file.is_file() else None
        with open(folder / name, "rb") as handle:
            sealed = b'"seal":{' in handle.readline(1 << 20)
        seals = SealCheck(trusted if sealed else None)
        chain = verify_journal(folder / name, head, visit=seals)
        report = seals.finish()
        result.sealed_journals += sealed
        result.problems += [f"{name}: line {p.line}: {p.what}" for p in chain.problems]
        result.problems += [f"{name}: seal: {what}" for what in report.problems]
    return result
