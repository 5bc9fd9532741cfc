"""A conformance page names the wire format and the layers its checks
actually tested (issue 41): through an adapter with only session checks
selected it had said 'every required check of the link and session layers
passes' and never named the adapter."""

from __future__ import annotations

import re
import subprocess
import sys
from html import unescape
from pathlib import Path


def _page(tmp_path: Path, *args: str) -> str:
    report = tmp_path / "conformance.html"
    done = subprocess.run([sys.executable, "-m", "bench.cli", "conformance", "--controller", "emulated", *args,
                           "--report", str(report)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return unescape(report.read_text(encoding="utf-8"))


def _headline(page: str) -> str:
    found = re.search(r'<p class="headline">(.*?)</p>', page, re.S)
    assert found, page[:2000]
    return found.group(1)


def test_through_an_adapter_with_session_checks_only_the_link_layer_is_not_claimed(tmp_path):
    page = _page(tmp_path, "--adapter", "ascii-sentence", "--check", "reset-wagered", "--check", "refuse-reasons")
    headline = _headline(page)
    assert "link and session layers" not in headline
    assert headline == ("PASS: every required check that ran passes: the session layer (2 checks) through the "
                        "adapter ascii-sentence 1.0; no link-layer check ran, so the link layer is not checked")
    assert "through ascii-sentence</h1>" in page
    assert '<th scope="row">wire format</th><td>the adapter ascii-sentence 1.0</td>' in page


def test_the_bench_protocols_link_checks_are_said_to_be_the_link_layers(tmp_path):
    headline = _headline(_page(tmp_path, "--protocol", "1", "--check", "rejects-bad-crc"))
    assert headline == "PASS: every required check that ran passes: the link layer (1 check)"
