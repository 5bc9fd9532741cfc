"""The twin's fingerprint draws its canary drops on the tower, and a process
that asked for it (a roulette session's journal header) must not carry the
tower's physics engine for the rest of its life (issue 42: about 29 MB of a
roulette session's memory). Run in a fresh interpreter: the canary is
computed once a process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import json
from twin.physics_engine import pybullet as pb
from twin import fingerprint
from twin.shipped import shipped_design
from twin.tower import drop, load_design

def connected():
    return sorted(c for c in range(64) if pb.isConnected(physicsClientId=c))

before = connected()
found = fingerprint.fingerprint()
after = connected()
tower = load_design(shipped_design("standard", "tower"))
first = drop(tower, 0).to_json()              # a tower session's drop after the fingerprint
print(json.dumps({"before": before, "after": after, "canaries": found["canaries"], "drop": first,
                  "canary_lines": fingerprint._canary_lines()["tower"][0]}))
"""


def test_fingerprint_lets_the_towers_engine_go_and_drops_stay_the_same():
    import json
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["before"] == []
    # the wheel's world stays (twin.wheel keeps it, a roulette session spins it); the tower's is gone
    assert len(seen["after"]) == 1, seen["after"]
    assert set(seen["canaries"]) == {"tower", "wheel"}
    # the tower connects a new engine for its next drop, and draws as the canary did
    assert seen["drop"] == seen["canary_lines"]
