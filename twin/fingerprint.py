"""Which twin this is: the versions of the software that does the twin's
arithmetic, and a canary, a short digest of what this twin draws for a few
fixed drops and spins of the shipped standard designs.

The same seed is meant to give the same drop and the same spin everywhere,
but two machines with the same versions may still draw differently (the
BLAS numpy is linked against, the libm build glibc picks for the CPU:
``tablebench_io.portable_math``), and two versions may draw alike: the
versions say what was installed and which libm ran, the canary what it drew.
A session's journal, a campaign's file and its reports carry the fingerprint
of the twin that drew them; ``bench replay --round`` compares it with this
machine's before it simulates a round again (docs/reproducibility.md).

The canary is the SHA-256 of the canonical JSON lines ``twin drop --json``
and ``twin spin --json`` print for ``CANARY_DROPS`` of the standard tower and
``CANARY_SPINS`` of the standard wheel, cut to ``DIGITS`` hex digits; each
kind's own digest too (``canaries``), so that a change of the wheel's
arithmetic does not look like a change of the tower's. It is computed once a
process, when first asked for (a few tenths of a second): only where a twin
is used, never for the fair dice. Without PyBullet the twin is "not installed".
"""

from __future__ import annotations

import ctypes
import hashlib
import platform
import threading
from contextlib import contextmanager
from functools import lru_cache
from importlib import metadata

from tablebench_io import portable_math
from twin import __version__

CANARY_DROPS = (0, 1)          # seeds of the standard tower's canary drops
CANARY_SPINS = (0,)            # seeds of the standard wheel's canary spins
DIGITS = 16                    # hex digits of a canary kept (64 bits)
NOT_INSTALLED = "not installed"
PACKAGES = {"pybullet": "PyBullet", "numpy": "numpy", "scipy": "SciPy"}   # distribution -> name in a sentence
# What else decides the arithmetic's last bits: which of glibc's libm builds runs
# (tablebench_io.portable_math: "pinned", "native" or "platform") and the C library.
MATH = {"libm": "libm", "libc": "C library"}
CLIENTS_LOOKED_AT = 64         # physics client ids checked for those the canary connected (PyBullet numbers from 0)
LABELS = {"tablebench": "tablebench", **PACKAGES, **MATH}

_lock = threading.Lock()       # the physics engine is driven from one thread at a time
_canaries: dict[str, str] | str | None = None


def versions() -> dict[str, str]:
    """tablebench's version and those of the packages the twin computes with,
    the libm that runs (pinned or the CPU's own) and the C library."""
    return dict(_versions())


@lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    found = [("tablebench", __version__)]
    for name in PACKAGES:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, NOT_INSTALLED))
    libc = " ".join(part for part in platform.libc_ver() if part)
    found += [("libm", portable_math.libm()), ("libc", libc or "unknown")]
    return tuple(found)


def _connected() -> set[int]:
    from twin.physics_engine import pybullet as pb
    return {client for client in range(CLIENTS_LOOKED_AT) if pb.isConnected(physicsClientId=client)}


@contextmanager
def _engines_let_go():
    """The physics clients the block connects are disconnected at its end,
    and the memory they held handed back: a roulette session asked for its
    fingerprint kept the tower's engine, which drew the canary drops, alive
    for the whole session (about 29 MB of its resident memory, issue 42). The
    tower forgets its client and connects a new one for its next drop."""
    from twin.physics_engine import pybullet as pb
    from twin.tower import dropping
    before = _connected()
    try:
        yield
    finally:
        started = _connected() - before
        for client in sorted(started):
            pb.disconnect(physicsClientId=client)
        # PyBullet gives a freed id to the next client (the wheel's, the camera's): the tower must
        # not take that one for its own and reset it, so it forgets the client it had.
        engine = getattr(dropping, "_Engine", None)
        if getattr(engine, "_client", None) in started:
            engine._client = None
        try:                                         # glibc keeps freed memory in its arenas otherwise
            ctypes.CDLL(None).malloc_trim(0)
        except (AttributeError, OSError):            # another C library: what it keeps, it keeps
            pass


def _canary_lines() -> dict[str, list[str]]:
    """Each kind's canary output, as ``twin drop --json`` / ``twin spin --json`` print it."""
    from twin.shipped import shipped_design
    from twin.tower import drop, load_design as load_tower
    from twin.wheel import load_design as load_wheel, spin
    tower = load_tower(shipped_design("standard", "tower"))
    wheel = load_wheel(shipped_design("standard", "wheel"))
    # The tower's engine is let go if the canary started it (a roulette session has no use for it; a
    # tower session's next drop connects one). The wheel's is kept: twin.wheel.world keeps its worlds
    # by design, the standard wheel's is the one a roulette session spins, and it does not look for
    # a client disconnected under it.
    with _engines_let_go():
        drops = [drop(tower, seed).to_json() for seed in CANARY_DROPS]
    return {"tower": drops, "wheel": [spin(wheel, seed).to_json() for seed in CANARY_SPINS]}


def _digest(lines: list[str]) -> str:
    return hashlib.sha256("".join(line + "\n" for line in lines).encode("utf-8")).hexdigest()[:DIGITS]


def canaries() -> dict[str, str] | str:
    """Each kind's canary digest ("tower", "wheel"); "not installed" without
    PyBullet; "failed: ..." if the twin cannot draw its standard designs."""
    global _canaries
    with _lock:
        if _canaries is None:
            try:
                lines = _canary_lines()
            except ImportError:
                _canaries = NOT_INSTALLED
            except Exception as err:      # a twin that cannot drop its own standard tower says so in the journal
                _canaries = f"failed: {err!r}"[:200]
            else:
                _canaries = {"canary": _digest(lines["tower"] + lines["wheel"]),
                             **{kind: _digest(kind_lines) for kind, kind_lines in lines.items()}}
        return _canaries


def canary_of(kind: str) -> str | None:
    """The canary of one kind ("tower", "wheel"), None when there is none (not installed, failed)."""
    found = canaries()
    return found.get(kind) if isinstance(found, dict) else None


def fingerprint() -> dict:
    """This twin, JSON-able: the versions, ``canary`` (of every canary run)
    and ``canaries`` (by kind)."""
    found = canaries()
    if isinstance(found, str):
        return {**versions(), "canary": found}
    return {**versions(), "canary": found["canary"], "canaries": {k: v for k, v in found.items() if k != "canary"}}


def differences(recorded: dict, here: dict) -> list[str]:
    """What differs between the fingerprint a file recorded and this one, in
    words ("numpy 2.1.0 here, 1.26.4 recorded"); [] for the same twin. Each
    kind's canary is named when both have them, else the canary."""
    said = []
    for name, label in LABELS.items():
        if recorded.get(name) != here.get(name):
            said.append(f"{label} {here.get(name, 'unknown')} here, {recorded.get(name, 'unknown')} recorded")
    ours, theirs = here.get("canaries"), recorded.get("canaries")
    if isinstance(ours, dict) and isinstance(theirs, dict):
        said += [f"the {kind}'s canary {ours.get(kind, 'unknown')} here, {theirs.get(kind, 'unknown')} recorded"
                 for kind in sorted(set(ours) | set(theirs)) if ours.get(kind) != theirs.get(kind)]
    elif recorded.get("canary") != here.get("canary"):
        said.append(f"the canary {here.get('canary', 'unknown')} here, {recorded.get('canary', 'unknown')} recorded")
    return said


def draws_alike(recorded: dict, here: dict, kind: str | None = None) -> bool:
    """Whether the two twins' canaries agree (of ``kind``, or all of them):
    their versions may differ, but they draw their canary runs alike."""
    if kind is not None:
        ours, theirs = here.get("canaries"), recorded.get("canaries")
        if isinstance(ours, dict) and isinstance(theirs, dict):
            return ours.get(kind) == theirs.get(kind)
    return recorded.get("canary") == here.get("canary")


def describe(found: dict | None) -> str:
    """A fingerprint in one line (a report's provenance, replay's line):
    "tablebench 0.1.0, PyBullet 3.2.7, numpy 2.4.6, SciPy 1.17.1; libm pinned (glibc 2.36); canary 3f...";
    None: a file older than fingerprints."""
    if not found:
        return "not recorded (written before the twin's fingerprint was)"
    return (", ".join(f"{label} {found.get(name, 'unknown')}" for name, label in LABELS.items() if name not in MATH)
            + f"; libm {found.get('libm', 'unknown')} ({found.get('libc', 'unknown')})"
            + f"; canary {found.get('canary', 'unknown')}")


__all__ = ["CANARY_DROPS", "CANARY_SPINS", "NOT_INSTALLED", "canaries", "canary_of", "describe", "differences",
           "draws_alike", "fingerprint", "versions"]
