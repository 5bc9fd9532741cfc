"""The same seed gives the same bytes on any machine (issue 36).

A lab re-simulates a disputed round on its own machine; a staged catalogue
swept on one machine is used on another. Each variant below changes what a
machine of this kind may differ in (the BLAS kernel OpenBLAS picks, its
threads, numpy's SIMD loops, glibc's libm for an older CPU) and runs the
commands a user runs, in child processes; every variant must print the same
bytes as the machine's own defaults. The spins include seed 1000081 of the
standard wheel, which gave pockets 1, 5 and 16 under three kernels before the
track had an integrator of its own; the drops include narrow-tray seeds whose
dice are wedged, where the rest trial and the group check decide.

benchmarks/reproducibility_bench.py runs 200 drops and spins of every shipped
design the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tablebench_io import portable_math

pytest.importorskip("pybullet", reason="the physics twin is an extra: pip install 'tablebench[twin]'")

REPO = Path(__file__).resolve().parents[2]
HOST_KNOBS = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NPY_DISABLE_CPU_FEATURES",
              "GLIBC_TUNABLES", portable_math.RESTARTED, portable_math.OPT_OUT)


def _numpy_dispatch() -> str:
    """Every SIMD target numpy dispatches to on this CPU beyond its baseline."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:                      # numpy 1.x
        from numpy.core import _multiarray_umath as umath      # type: ignore[no-redef]
    found = [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]
    return " ".join(found)


VARIANTS = {
    "defaults": {},
    "OPENBLAS_CORETYPE=Haswell": {"OPENBLAS_CORETYPE": "Haswell"},
    "OPENBLAS_CORETYPE=SkylakeX": {"OPENBLAS_CORETYPE": "SkylakeX"},
    "OPENBLAS_CORETYPE=Sandybridge": {"OPENBLAS_CORETYPE": "Sandybridge"},
    "OPENBLAS_CORETYPE=Prescott": {"OPENBLAS_CORETYPE": "Prescott"},
    "OPENBLAS_NUM_THREADS=1": {"OPENBLAS_NUM_THREADS": "1"},
    "OPENBLAS_NUM_THREADS=2": {"OPENBLAS_NUM_THREADS": "2"},
    "numpy baseline SIMD only": {"NPY_DISABLE_CPU_FEATURES": _numpy_dispatch()},
    # glibc's view of a CPU without AVX, AVX2, AVX-512 or FMA: its libm, as an older machine's
    "glibc: an older CPU": {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F,-AVX2,-AVX,-FMA,-FMA4"},
}

COMMANDS = (
    ("drop", "towers/standard", "0", "3"),
    ("drop", "towers/narrow-tray", "400018", "2"),
    ("drop", "towers/narrow-tray", "400284", "1"),
    ("drop", "towers/straight-chute", "7", "2"),
    ("spin", "wheels/standard", "1000080", "3"),
    ("spin", "wheels/tilted", "0", "2"),
)

# One child per variant, started as the commands start (with the libm they
# pin): it runs each command's main as the console script would, and what
# the edge's player predicts (numpy code) besides.
CHILD = """
import contextlib, hashlib, io, json, sys
import twin.cli
from twin.edge.observer import Camera as Observer
from twin.edge.wheel import predict_spin
from twin.wheel.design import load_design
from twin.wheel.track import LeavingMap, TrackModel
import tablebench_fixtures
out = {}
for command in json.loads(sys.argv[1]):
    verb, design, seed, count = command
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = twin.cli.main([verb, design, "--seed", seed, "--count", count, "--json"])
    assert status == 0, (command, status)
    out[" ".join(command)] = hashlib.sha256(printed.getvalue().encode()).hexdigest()
digest = hashlib.sha256()
for name in ("standard", "tilted"):
    design = load_design(tablebench_fixtures.resolve("wheels/" + name, "wheel"))
    leaving = LeavingMap(TrackModel(design))
    for seed in (1, 2):
        digest.update(repr(predict_spin(design, seed, [0.5, 1.0, 2.0], Observer(), noise_seed=3,
                                        leaving=leaving)).encode())
        digest.update(repr(leaving.leave(0.3 * seed, 4.0 + seed)).encode())
out["edge predictions"] = digest.hexdigest()
print(json.dumps(out))
"""


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in HOST_KNOBS}
    env.update(extra)
    return env


def _outputs(extra: dict[str, str]) -> dict[str, str]:
    """What each command prints under one variant (sha-256 of its stdout)."""
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(COMMANDS)],
                          env=portable_math.pinned(_env(extra)), cwd=REPO, capture_output=True, timeout=600,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr.decode()[-800:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def reference() -> dict[str, str]:
    return _outputs({})


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "defaults"])
def test_drops_spins_and_predictions_are_the_same_bytes_under(variant, reference):
    got = _outputs(VARIANTS[variant])
    differ = [what for what in reference if got[what] != reference[what]]
    assert not differ, f"under {variant} these give other bytes than under the machine's defaults: {differ}"


def test_a_frame_is_the_same_bytes_under_another_blas_and_numpy_simd(tmp_path):
    images = []
    for name, extra in (("a", {}), ("b", {"OPENBLAS_CORETYPE": "Prescott",
                                          "NPY_DISABLE_CPU_FEATURES": _numpy_dispatch()})):
        out = tmp_path / name
        done = subprocess.run([sys.executable, "-m", "twin.cli", "frames", "towers/standard", "--out", str(out),
                               "--seed", "3", "--count", "1"], env=_env(extra), cwd=REPO, capture_output=True,
                              timeout=300, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr.decode()[-500:]
        images.append({p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                       for p in sorted(out.rglob("*")) if p.is_file()})
    assert images[0] and images[0] == images[1]


def test_fixed_order_products_match_numpy_to_rounding():
    from twin import fixed_arithmetic as fx
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(50, 3)), rng.normal(size=(3, 3))
    assert np.allclose(fx.matmul(a, b), a @ b, rtol=0, atol=1e-14)
    assert np.allclose(fx.matmul(b, a[0]), b @ a[0], rtol=0, atol=1e-14)
    assert np.allclose(fx.row_norms(a), np.linalg.norm(a, axis=1), rtol=1e-15)
    assert fx.dot(a[0], a[1]) == pytest.approx(float(a[0] @ a[1]), abs=1e-15)
    assert np.allclose(fx.exp(a), np.exp(a), rtol=1e-15) and fx.cos(a).shape == a.shape


# -- the libm the commands pin (tablebench_io.portable_math) ----------------------------

def _fma_cpu() -> bool:
    try:
        return " fma " in f" {Path('/proc/cpuinfo').read_text().split('flags', 1)[1].splitlines()[0]} "
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not portable_math.applies(), reason="only glibc on x86-64 has libm variants to pin")
def test_the_twin_command_runs_the_same_libm_on_a_new_cpu_and_an_old_one(tmp_path):
    script = Path(sys.executable).parent / "twin"
    args = [str(script), "drop", "towers/standard", "--seed", "5", "--count", "4", "--json"]

    def drops(extra):
        done = subprocess.run(args, env=_env(extra), cwd=tmp_path, capture_output=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr.decode()[-500:]
        return done.stdout

    here = drops({})
    assert here == drops({"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F,-AVX2,-AVX,-FMA,-FMA4"})
    if _fma_cpu():
        # the CPU's own libm (FMA builds) rests these dice elsewhere: the pin is what makes them agree
        assert drops({portable_math.OPT_OUT: "1"}) != here


def test_the_pin_keeps_the_tunables_a_user_set_and_is_taken_once():
    env = portable_math.pinned({"GLIBC_TUNABLES": "glibc.malloc.check=3:glibc.cpu.hwcaps=-AVX512F"})
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.check=3:glibc.cpu.hwcaps=-AVX512F,-FMA,-FMA4"
    assert portable_math.is_pinned(env) and portable_math.pinned(env) == env
    assert not portable_math.is_pinned({"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-FMA"})


@pytest.mark.skipif(not portable_math.applies(), reason="only glibc on x86-64 has libm variants to pin")
def test_a_pytest_command_restarts_pinned_so_staged_seeds_hold_there_too(tmp_path):
    (tmp_path / "test_libm.py").write_text(
        "from tablebench_io import portable_math\n"
        "def test_it():\n    assert portable_math.libm() == 'pinned'\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_libm.py"],
                          env=_env({}), cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-800:]
    assert "1 passed" in done.stdout
