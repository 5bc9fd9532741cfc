"""The probes' verdicts kept between commands
(``$XDG_CACHE_HOME/tablebench/adapter-verdicts.json``), so that trying a
third party's adapter in a child process (``bench.adapters.probe``) costs
once per installed version, not on every command.

A verdict is kept under what it was made from: the Python that made it, this
bench's version, the distribution (name, version, where its metadata lies and
when that was written: a reinstall of the same version is tried afresh), the
entry point, and the file and modification time of the module it imports
first (an edit in place, as in an editable install, is tried afresh). Only a
verdict a child wrote itself is kept; a timeout or a killed child may be the
machine's load. The file is an aid, never a condition: unreadable, it is
empty; unwritable, nothing is kept. Two commands may write it at once: each
replaces it whole, and a verdict lost that way is only made again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib import metadata, util
from pathlib import Path

from bench.adapters.probe import Verdict
from tablebench_io import __version__

MAX_VERDICTS = 256              # the newest kept: a cache must not grow with every version ever installed
MAX_FILE_BYTES = 1 << 20        # larger than any file this writes: someone else's, ignored


def path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tablebench" / "adapter-verdicts.json"


def _stamp(file: str | os.PathLike | None) -> list | None:
    try:
        st = os.stat(file) if file else None
    except OSError:
        return None
    return [str(file), st.st_mtime_ns, st.st_size] if st else None


def key(entry: metadata.EntryPoint) -> str:
    """What a verdict on ``entry`` stands on, as one string."""
    dist = entry.dist
    top = entry.module.split(".")[0]
    try:
        # A top-level module's spec is found without running any of its code
        # (a submodule's would import its package first).
        spec = util.find_spec(top)
        origin = spec.origin if spec is not None else None
    except Exception:           # an odd finder's failure only means the module's file is not part of the key
        origin = None
    parts = [sys.executable, sys.version, __version__,
             dist.name if dist is not None else None, dist.version if dist is not None else None,
             _stamp(getattr(dist, "_path", None)),       # the .dist-info folder (PathDistribution's)
             entry.name, entry.value, _stamp(origin)]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


class Verdicts:
    def __init__(self, file: Path | None = None):
        self.file = file or path()
        self.kept = self._read()
        self.changed = False

    def _read(self) -> dict:
        try:
            if self.file.stat().st_size > MAX_FILE_BYTES:
                return {}
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> Verdict | None:
        return Verdict.from_json(self.kept.get(key))

    def put(self, key: str, verdict: Verdict) -> None:
        if not verdict.lasting:
            return
        self.kept.pop(key, None)
        self.kept[key] = verdict.as_json()      # last in the file: the newest
        self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        kept = dict(list(self.kept.items())[-MAX_VERDICTS:])
        tmp = self.file.with_name(f"{self.file.name}.{os.getpid()}.tmp")
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(kept, indent=0), encoding="utf-8")
            os.replace(tmp, self.file)          # whole or not at all: a reader never sees half a file
        except OSError:
            try:
                tmp.unlink()
            except OSError:
                pass
        self.changed = False
