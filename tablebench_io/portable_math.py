"""One libm on every x86-64 machine: the twin's physics gives the same bits on any CPU.

glibc's libm carries two builds of sin, cos, exp, log, pow, atan2 and their
kin on x86-64, and picks one when a process starts: the FMA build on a CPU
with FMA and AVX2 (Intel since Haswell, AMD since Zen), the SSE2 build on
any other (an older CPU, or a virtual machine that hides those features).
Both are within an ulp of the true value, but not always the same ulp:
measured with glibc 2.36, a 300,000-value sweep of each function differs
between the two, and so do PyBullet's drops, whose steps call them (the
same seed rested a die at another place). A regulator's machine must
simulate what the bench's machine did, so tablebench's commands start
their process with the SSE2 build on every machine, which every x86-64 CPU
can run: ``glibc.cpu.hwcaps=-FMA,-FMA4`` in ``GLIBC_TUNABLES`` (glibc reads
tunables only at start, hence the re-exec; it costs one interpreter start).

Elsewhere (another OS or architecture, another C library) nothing is
changed; the twin's fingerprint (twin.fingerprint) records which libm ran.
``TABLEBENCH_NATIVE_LIBM=1`` keeps the CPU's own choice (faster on some
machines, and not comparable across them).
"""

from __future__ import annotations

import os
import platform
import sys
from typing import Mapping, MutableMapping

TUNABLES = "GLIBC_TUNABLES"
HWCAPS = "glibc.cpu.hwcaps"
MASKED = ("-FMA", "-FMA4")          # what makes glibc's resolvers take the SSE2 builds
OPT_OUT = "TABLEBENCH_NATIVE_LIBM"
RESTARTED = "TABLEBENCH_LIBM_RESTARTED"     # set on the re-exec: never a second one


def applies() -> bool:
    """glibc on x86-64: the one place with run-time libm variants to pin."""
    return (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
            and platform.libc_ver()[0] == "glibc")


def _hwcaps(tunables: str) -> list[str]:
    for item in tunables.split(":"):
        name, _, value = item.partition("=")
        if name == HWCAPS:
            return value.split(",")
    return []


def is_pinned(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a process started with ``environ`` runs the pinned libm."""
    caps = _hwcaps((os.environ if environ is None else environ).get(TUNABLES, ""))
    return all(mask in caps for mask in MASKED)


def pinned(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with the pin added to any tunables already there."""
    env = dict(environ)
    items = [i for i in env.get(TUNABLES, "").split(":") if i]
    caps = _hwcaps(env.get(TUNABLES, ""))
    caps += [m for m in MASKED if m not in caps]
    items = [i for i in items if i.partition("=")[0] != HWCAPS] + [f"{HWCAPS}={','.join(caps)}"]
    env[TUNABLES] = ":".join(items)
    return env


def libm() -> str:
    """Which libm this process runs: ``pinned``, ``native`` (glibc's own choice
    for this CPU) or ``platform`` (not glibc on x86-64: nothing to pin)."""
    if not applies():
        return "platform"
    return "pinned" if is_pinned() else "native"


def restart_pinned(environ: MutableMapping[str, str] | None = None) -> None:
    """Start this process again with the pinned libm, if it does not run it
    already (and may be restarted). Call it first thing in a command's main,
    before anything is printed or opened."""
    environ = os.environ if environ is None else environ
    if not applies() or is_pinned(environ) or environ.get(OPT_OUT) == "1" or environ.get(RESTARTED) == "1":
        return
    env = pinned(environ)
    env[RESTARTED] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)


def started_as(command: str) -> bool:
    """Whether this process is ``command`` run from a shell (its console script,
    or ``python -m command``), not a program that imported it: only such a
    process may be restarted from the top."""
    argv = list(getattr(sys, "orig_argv", ()))[1:]
    while argv and argv[0].startswith("-") and argv[0] != "-m":
        argv = argv[1:]                       # the interpreter's own flags (-X, -u, -B ...)
    if argv[:1] == ["-m"]:
        return len(argv) > 1 and argv[1].split(".")[0] == command
    return bool(argv) and os.path.basename(argv[0]).removesuffix(".exe") in (command, f"{command}-script.py")


__all__ = ["applies", "is_pinned", "libm", "pinned", "restart_pinned", "started_as"]
