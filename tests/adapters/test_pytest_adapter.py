"""The regulation scenarios through an adapter (``pytest features/
--controller-adapter NAME``): against the emulated Sic Bo controller speaking
the example protocol, a breach fails its scenarios naming the clause, the
others pass, and the run's journal names the adapter and replays."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from bench.journal.replay import replay

ROOT = Path(__file__).resolve().parents[2]


def test_scenarios_through_the_example_adapter_fail_naming_the_clause(tmp_path):
    junit = tmp_path / "junit.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "features/test_sic_bo_on_controller.py", "--controller",
         "emulated:small-wins-on-triple", "--controller-adapter", "ascii-sentence", "-k", "Small", "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist", "--tb=line", f"--junitxml={junit}", f"--controller-log={tmp_path / 'wire'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    failed = [c for c in cases if c.findall("failure") or c.findall("error")]
    passed = [c for c in cases if not (c.findall("failure") or c.findall("error") or c.findall("skipped"))]
    assert proc.returncode == 1 and failed and passed, proc.stdout[-3000:]
    assert all("625a.3(6)" in ((c.find("failure") if c.find("failure") is not None else c.find("error")).text or "")
               for c in failed)
    journals = sorted((tmp_path / "wire").glob("journal-*.jsonl"))
    assert journals
    for journal in journals:
        assert json.loads(journal.read_text().splitlines()[0])["adapter"] == "ascii-sentence"
        assert replay(journal, redecode=True).intact
