"""The suite's machine-readable reports carry the clauses: in the JUnit XML a
scenario's test case is named by the scenario, in the feature's words, and
lists the clauses it is tagged with as properties; the Cucumber JSON keeps
the tags."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_junit_names_scenarios_and_carries_their_clauses_and_cucumber_keeps_the_tags(tmp_path):
    junit, cucumber = tmp_path / "junit.xml", tmp_path / "cucumber.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/features/test_sic_bo_feature.py", "-k", "three_of_a_kind",
                           f"--junitxml={junit}", f"--cucumberjson={cucumber}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert cases
    named = {case.get("name"): [p.get("value") for p in case.iter("property") if p.get("name") == "clause"]
             for case in cases}
    assert named["Three of a Kind wins only when its number is on all three dice (4, 4 and 4)"] == ["625a.3(1)"]
    assert all(not name.startswith("test_") for name in named)          # no Python function names
    assert all(clauses for clauses in named.values())                   # every scenario names its clause
    tags = {tag["name"] for feature in json.loads(cucumber.read_text()) for element in feature["elements"]
            for tag in element.get("tags", ())}
    assert "625a.3.1" in tags
