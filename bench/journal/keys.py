"""Bench keys: the key files behind sealed journals (``bench.journal.seal``).

A bench key is made once (``bench key new DIR``) and then only ever moves
forward. It is three files:

- ``bench.pub``: the long-term Ed25519 public key (PEM). Its fingerprint,
  ``sha256:`` and the SHA-256 of the raw 32-byte key in hex, is what a
  regulator keeps.
- ``bench.sessions``: public too, the session keys' public halves (32 bytes
  each, in order). Their RFC 6962 Merkle tree head (size and root) was
  signed by the long-term key when the key was made; each journal carries
  its session key with the audit path to that signed head.
- ``bench.key``: the private key state, owner-only (0600): the index of the
  next unused session key and that key's 32-byte seed, nothing else. Session
  seeds form a hash chain, ``seed[i+1] = SHA-256(tag || seed[i])``, and each
  session key is the Ed25519 key whose private bytes are its seed.

The long-term private key signs the tree head once and is never written
anywhere: after ``bench key new`` nobody holds it. Taking a session key
rewrites ``bench.key`` (atomically, before the key is used) with the next
seed: the seed just taken cannot be computed again from what is left, since
SHA-256 cannot be run backwards. So a copy of ``bench.key`` taken at any
time can certify only sessions that had not started yet, never one that
had. This is the simple forward-secure signature of Bellare and Miner
(CRYPTO '99: a fresh key per period, each certified under one public key,
each erased after its period), with the per-period certificates compressed
into one signed Merkle tree head (Certificate Transparency, RFC 6962).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from bench.journal.ending import fsync_folder
from bench.errors import BenchError
from tablebench_io.locking import lock

SCHEME = "tablebench-seal-1"
DEFAULT_SESSIONS = 16384          # sessions one key can seal; about 1.4 s to make, 512 KiB of public keys
PRIVATE_NAME, PUBLIC_NAME, SESSIONS_NAME = "bench.key", "bench.pub", "bench.sessions"
LOCK_NAME = "bench.lock"          # held while a session key is taken
_NEXT_SEED = SCHEME.encode() + b" next session seed\x00"
_TREE_HEAD = SCHEME.encode() + b" tree head\x00"
_HEX64 = re.compile(r"[0-9a-f]{64}")


class KeyFileError(BenchError):
    """A key file that cannot be used: names the file and what is wrong."""


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(public: bytes) -> str:
    """What a regulator keeps: ``sha256:`` and the SHA-256 of the raw 32-byte public key."""
    return "sha256:" + hashlib.sha256(public).hexdigest()


def parse_fingerprint(text: str) -> str | None:
    """``sha256:<64 hex>`` or the bare 64 hex digits (colons and spaces ignored), normalised; else None."""
    text = text.strip().lower()
    text = re.sub(r"[\s:]", "", text[len("sha256:"):] if text.startswith("sha256:") else text)
    return "sha256:" + text if _HEX64.fullmatch(text) else None


def public_of(seed: bytes) -> bytes:
    return raw_public(Ed25519PrivateKey.from_private_bytes(seed).public_key())


def next_seed(seed: bytes) -> bytes:
    return hashlib.sha256(_NEXT_SEED + seed).digest()


# -- the RFC 6962 Merkle tree over the session public keys (section 2.1) -------------------
def _leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def _node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def tree_root(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) of RFC 6962."""
    level = [_leaf_hash(leaf) for leaf in leaves]
    if not level:
        return hashlib.sha256(b"").digest()
    return _subtree(level, 0, len(level))


def _subtree(hashes: list[bytes], start: int, end: int) -> bytes:
    if end - start == 1:
        return hashes[start]
    k = _split(end - start)
    return _node_hash(_subtree(hashes, start, start + k), _subtree(hashes, start + k, end))


def audit_path(index: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]) of RFC 6962: the sibling hashes from the leaf up."""
    hashes = [_leaf_hash(leaf) for leaf in leaves]

    def path(m: int, start: int, end: int) -> list[bytes]:
        if end - start <= 1:
            return []
        k = _split(end - start)
        if m < k:
            return path(m, start, start + k) + [_subtree(hashes, start + k, end)]
        return path(m - k, start + k, end) + [_subtree(hashes, start, start + k)]
    return path(index, 0, len(hashes))


def path_leads_to(root: bytes, size: int, index: int, leaf: bytes, path: list[bytes]) -> bool:
    """The inclusion proof check of RFC 9162, section 2.1.3.2."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, _leaf_hash(leaf)
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = _node_hash(p, r)
            if not fn & 1:
                while not (fn & 1 or fn == 0):
                    fn >>= 1
                    sn >>= 1
        else:
            r = _node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def tree_head_message(size: int, root: bytes) -> bytes:
    return _TREE_HEAD + size.to_bytes(8, "big") + root


def tree_head_signed(public: bytes, size: int, root: bytes, signature: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, tree_head_message(size, root))
        return True
    except (InvalidSignature, ValueError):
        return False


# -- files ----------------------------------------------------------------------------------
def _write_private(path: Path, data: dict, *, replace: bool) -> None:
    """Owner-only from the first byte (never chmod after the fact); with
    ``replace``, written beside and renamed over the old file, so that a
    crash leaves either the old state or the new one, never half of each."""
    target = path.with_name(path.name + ".new") if replace else path
    if replace:
        target.unlink(missing_ok=True)     # left by a crash mid-write (under the lock: nobody else's)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    if replace:
        os.replace(target, path)
    fsync_folder(path.parent)


def new_key(directory: str | os.PathLike[str], sessions: int = DEFAULT_SESSIONS) -> str:
    """Make a bench key in ``directory`` (three files); returns its fingerprint."""
    if not 1 <= sessions <= 1 << 20:
        raise KeyFileError(f"--sessions {sessions}: must be from 1 to {1 << 20}")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    for name in (PRIVATE_NAME, PUBLIC_NAME, SESSIONS_NAME):
        if (folder / name).exists():
            raise KeyFileError(f"{folder / name}: already exists; a key is never overwritten (choose another DIR)")
    first = seed = os.urandom(32)
    leaves = []
    for _ in range(sessions):
        leaves.append(public_of(seed))
        seed = next_seed(seed)
    root = tree_root(leaves)
    long_term = Ed25519PrivateKey.generate()
    public = raw_public(long_term.public_key())
    signature = long_term.sign(tree_head_message(sessions, root))
    del long_term              # never written: after this nobody can sign another tree head
    (folder / SESSIONS_NAME).write_bytes(b"".join(leaves))
    (folder / PUBLIC_NAME).write_bytes(Ed25519PublicKey.from_public_bytes(public).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    _write_private(folder / PRIVATE_NAME, {
        "scheme": SCHEME, "public_key": public.hex(),
        "tree": {"size": sessions, "root": root.hex(), "signature": signature.hex()},
        "next": 0, "seed": first.hex()}, replace=False)
    return fingerprint(public)


def load_public(path: str | os.PathLike[str]) -> bytes:
    """The raw 32-byte public key of a ``bench.pub`` file (PEM)."""
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except OSError as err:
        raise KeyFileError(f"{path}: cannot read: {err.strerror}") from None
    except ValueError:
        raise KeyFileError(f"{path}: not a PEM public key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{path}: not an Ed25519 public key")
    return raw_public(key)


@dataclass(frozen=True)
class KeyState:
    path: Path
    public: bytes                  # the long-term public key
    size: int                      # session keys in the tree
    root: bytes
    signature: bytes               # the long-term key's signature of the tree head
    next: int                      # the next unused session key
    seed: bytes | None             # its seed (None: every session key is used)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)


def _check_private_mode(path: Path) -> None:
    try:
        info = path.stat()
    except OSError as err:
        raise KeyFileError(f"{path}: cannot read: {err.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise KeyFileError(f"{path}: not a regular file")
    if info.st_mode & 0o077:
        raise KeyFileError(f"{path}: permissions {stat.S_IMODE(info.st_mode):04o} let others read or change "
                           f"the private key; refused (chmod 600 {path}, and treat the key as exposed)")
    if info.st_uid != os.getuid():
        raise KeyFileError(f"{path}: owned by another user (uid {info.st_uid}); refused")


def load_state(path: str | os.PathLike[str]) -> KeyState:
    path = Path(path)
    _check_private_mode(path)
    try:
        data = json.loads(path.read_text(encoding="ascii"))
        if data.get("scheme") != SCHEME:
            raise KeyFileError(f"{path}: scheme: {data.get('scheme')!r}, not {SCHEME}")
        tree = data["tree"]
        state = KeyState(path, bytes.fromhex(data["public_key"]), int(tree["size"]), bytes.fromhex(tree["root"]),
                         bytes.fromhex(tree["signature"]), int(data["next"]),
                         bytes.fromhex(data["seed"]) if data["seed"] is not None else None)
    except KeyFileError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise KeyFileError(f"{path}: not a bench key state ({type(err).__name__}: {err})") from None
    if len(state.public) != 32 or len(state.root) != 32 or (state.seed is not None and len(state.seed) != 32):
        raise KeyFileError(f"{path}: public_key, tree.root and seed must be 32 bytes each")
    return state


def load_sessions(state: KeyState) -> list[bytes]:
    """The session public keys beside the state, checked against its signed tree head."""
    path = state.path.with_name(SESSIONS_NAME)
    try:
        blob = path.read_bytes()
    except OSError as err:
        raise KeyFileError(f"{path}: cannot read: {err.strerror}") from None
    leaves = [blob[i:i + 32] for i in range(0, len(blob), 32)]
    if len(blob) != 32 * state.size or tree_root(leaves) != state.root:
        raise KeyFileError(f"{path}: the session public keys do not match the key's tree head "
                           f"({state.size} keys, root {state.root.hex()[:16]}…)")
    return leaves


@dataclass(frozen=True)
class SessionKey:
    """One session's key, taken from the state (which has already moved past it)."""
    public_key: bytes              # the long-term public key
    size: int
    root: bytes
    tree_signature: bytes
    index: int
    private: Ed25519PrivateKey
    path: list[bytes]              # the audit path of the session key to the tree head


@contextlib.contextmanager
def _locked(directory: Path):
    """One bench at a time takes a session key from a state (two could take the same one).
    The lock is a file beside the state: a folder cannot be opened for locking on every system."""
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        lock(fd)
        yield
    finally:
        os.close(fd)


def take_session(path: str | os.PathLike[str]) -> SessionKey:
    """The next session key. The state on disk is moved past it before it is
    returned: if the session then fails, its index is simply never used."""
    path = Path(path)
    try:
        return _take_session(path)
    except OSError as err:
        raise KeyFileError(f"{path}: {err.strerror or err}") from None


def _take_session(path: Path) -> SessionKey:
    with _locked(path.parent):
        state = load_state(path)
        if state.seed is None or state.next >= state.size:
            raise KeyFileError(f"{path}: all {state.size} session keys are used; make a new key "
                               f"(bench key new DIR) and give the regulator its fingerprint")
        if not tree_head_signed(state.public, state.size, state.root, state.signature):
            raise KeyFileError(f"{path}: tree: the tree head's signature does not verify with public_key")
        leaves = load_sessions(state)
        if public_of(state.seed) != leaves[state.next]:
            raise KeyFileError(f"{path}: seed: not the seed of session key {state.next}")
        following = next_seed(state.seed) if state.next + 1 < state.size else None
        _write_private(path, {
            "scheme": SCHEME, "public_key": state.public.hex(),
            "tree": {"size": state.size, "root": state.root.hex(), "signature": state.signature.hex()},
            "next": state.next + 1, "seed": following.hex() if following else None}, replace=True)
    return SessionKey(state.public, state.size, state.root, state.signature, state.next,
                      Ed25519PrivateKey.from_private_bytes(state.seed), audit_path(state.next, leaves))


def trusted_fingerprint(text: str) -> str:
    """``--pubkey FILE|FINGERPRINT``: a ``bench.pub`` file, or the fingerprint itself."""
    if Path(text).is_file():
        return fingerprint(load_public(text))
    found = parse_fingerprint(text)
    if found is None:
        raise KeyFileError(f"--pubkey {text}: neither a public key file nor a fingerprint (sha256:<64 hex digits>)")
    return found
