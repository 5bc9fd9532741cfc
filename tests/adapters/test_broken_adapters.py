"""An adapter package that is broken at import cannot silence a run (issue
45, item 2; docs/adapters.md, "A broken adapter"). Packages in the
``tablebench.adapters`` group whose import calls sys.exit(0), raises, hangs
(time.sleep(3600)) or calls os._exit(0), all installed at once: ``bench
adapters`` lists each as broken with its reason (the subprocess timeout is
only a hang guard); a session through the shipped adapter runs and replays
with a verdict; ``--adapter`` naming one exits 2 in one line naming the
package and the reason; a journal recorded through an adapter whose package
later breaks is refused by replay the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.adapters import registry
from bench.adapters.registry import AdapterBroken
from tests.json_schemas import json_record

HANG_GUARD_S = 120              # far above the load bound below, far below the 3600 s sleep
LOAD_BOUND_S = "5"              # TABLEBENCH_ADAPTER_LOAD_TIMEOUT: how long the hanging package is given

BROKEN = {  # kind: (the module's code, words of the reason)
    "exits": ("import sys\nsys.exit(0)\n", "calls sys.exit(0) at import"),
    "raises": ("raise RuntimeError('no licence file')\n", "RuntimeError at import: no licence file"),
    "hangs": ("import time\ntime.sleep(3600)\n", f"still loading after {LOAD_BOUND_S} s"),
    "ends": ("import os\nos._exit(0)\n", "ends the process while loading (exit status 0"),
}
GOOD = ("from bench.adapters.sentence import AsciiSentence\n\n\n"
        "class Adapter(AsciiSentence):\n    name = 'acme-sentence'\n    version = '2.0'\n")


def install(site: Path, package: str, adapter: str, code: str) -> Path:
    """A distribution ``package`` 1.0 declaring ``adapter`` as its module's
    ``Adapter``, found on PYTHONPATH as an installed one is (dist-info)."""
    module = package.replace("-", "_")
    dist = site / f"{module}-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[tablebench.adapters]\n{adapter} = {module}:Adapter\n")
    (site / f"{module}.py").write_text(code)
    return site / f"{module}.py"


def bench(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD_S)


def environment(site: Path, cache: Path) -> dict:
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site),
            "XDG_CACHE_HOME": str(cache), "TABLEBENCH_ADAPTER_LOAD_TIMEOUT": LOAD_BOUND_S}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("broken-site")
    for kind, (code, _) in BROKEN.items():
        install(site, f"tb-{kind}", f"{kind}-one", code)
    return site


def test_bench_adapters_lists_each_broken_package_with_its_reason_and_the_shipped_ones_as_usable(site, tmp_path):
    listed = bench("adapters", env=environment(site, tmp_path))
    assert listed.returncode == 0, listed.stderr
    lines = {line.split()[0]: line for line in listed.stdout.splitlines()}
    for kind, (_, reason) in BROKEN.items():
        line = lines[f"{kind}-one"]
        assert f"tb-{kind}" in line and f"BROKEN: {reason}" in line, line
    for shipped in ("tablebench", "ascii-sentence"):
        assert "BROKEN" not in lines[shipped], lines[shipped]


def test_a_session_through_the_shipped_adapter_still_runs_and_replays_with_a_verdict(site, tmp_path):
    env = environment(site, tmp_path / "cache")
    run = bench("run", "--adapter", "ascii-sentence", "--rounds", "1", "--seed", "3", "--out", tmp_path / "o",
                "--json", env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert json_record(run.stdout, "run", "summary")["rounds"] == 1            # a session was played, not an exit at import
    again = bench("replay", tmp_path / "o" / "session.jsonl", env=env)
    assert again.returncode == 0 and "PASS" in again.stdout, again.stdout[-2000:] + again.stderr[-2000:]


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_naming_a_broken_package_is_refused_in_one_line_naming_it(site, tmp_path, kind):
    used = bench("run", "--adapter", f"{kind}-one", "--rounds", "1", "--out", tmp_path / "o",
                 env=environment(site, tmp_path / "cache"))
    err = used.stderr.strip().splitlines()
    assert used.returncode == 2 and len(err) == 1, used.stdout[-2000:] + used.stderr[-2000:]
    assert f"--adapter {kind}-one: the adapter from tb-{kind} 1.0 cannot be used: {BROKEN[kind][1]}" in err[0]
    assert not (tmp_path / "o" / "session.jsonl").exists()  # refused before anything started


def test_a_journal_whose_adapter_package_breaks_later_replays_with_status_2_naming_it(tmp_path):
    module = install(tmp_path / "site", "tb-acme", "acme-sentence", GOOD)
    env = environment(tmp_path / "site", tmp_path / "cache")
    run = bench("run", "--adapter", "acme-sentence", "--rounds", "1", "--seed", "3", "--out", tmp_path / "o",
                env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    # The package's verdict is kept as usable; an edit in place must not be
    # taken on that word (the same version, a new file).
    module.write_text(GOOD + "import sys\nsys.exit(0)\n")
    again = bench("replay", tmp_path / "o" / "session.jsonl", env=env)
    err = again.stderr.strip().splitlines()
    assert again.returncode == 2 and len(err) == 1, again.stdout[-2000:] + again.stderr[-2000:]
    assert "acme-sentence" in err[0] and "tb-acme 1.0 cannot be used here: calls sys.exit(0) at import" in err[0]


def test_a_verdict_is_tried_once_per_installed_version(site, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tried = []
    real = registry.probe
    monkeypatch.setattr(registry, "probe", lambda entries: tried.append(entries) or real(entries))
    for _ in range(2):
        with pytest.raises(AdapterBroken, match="RuntimeError at import: no licence file"):
            registry.get_adapter("raises-one")
    assert tried == [[("raises-one", "tb_raises:Adapter")]]
    assert "tb_raises" not in sys.modules                    # never imported into this process
