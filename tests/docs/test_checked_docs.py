"""Every checked block in docs/ is made by a test, and a figure changed by
hand in one fails that test (tests/docs/checked_blocks.py)."""

from __future__ import annotations

import shutil

import pytest

from tests.docs import checked_blocks, controller_figures
from tests.docs.checked_blocks import DOCS, ROOT, StaleDoc, blocks, check, check_row, rows

# Each block, and the test that makes and checks it.
MADE_BY = {
    ("controller-testing.md", "scenarios-run"):
        "tests/bench/test_pytest_controller.py::test_the_compliant_emulator_passes_every_scenario_it_can_play",
    ("controller-testing.md", "misbehaviour-table"):
        "tests/bench/test_pytest_controller.py::test_each_misbehaviour_fails_the_suite_naming_its_clause",
    ("json.md", "json-kinds"): "tests/docs/test_doc_indexes.py::test_the_json_kinds_of_docs_json_are_the_schemas_shipped",
    ("reports.md", "page-kinds"):
        "tests/docs/test_doc_indexes.py::test_the_kinds_of_page_of_docs_reports_are_the_ones_the_code_writes",
    ("bench-run.md", "exit-statuses"): "tests/docs/test_doc_indexes.py::test_the_exit_statuses_of_docs_bench_run_are_the_code_s",
}


def test_every_checked_block_in_the_docs_is_made_by_a_test():
    found = {(doc.name, name) for doc in sorted(DOCS.glob("*.md")) for name in blocks(doc)}
    assert found == set(MADE_BY), f"blocks no test makes: {found - set(MADE_BY)}; gone: {set(MADE_BY) - found}"
    for test in MADE_BY.values():
        path, name = test.split("::")
        assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8"), test


def test_the_misbehaviour_table_has_a_row_for_each_misbehaviour_the_suite_plays_and_no_other():
    from tests.bench.test_pytest_controller import SUITE_SAMPLE
    assert set(rows(controller_figures.DOC, "misbehaviour-table")) == set(SUITE_SAMPLE)


@pytest.fixture
def copy_of_the_doc(tmp_path, monkeypatch):
    """docs/controller-testing.md copied into a scratch repository, where the checks look."""
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / controller_figures.DOC, tmp_path / controller_figures.DOC)
    monkeypatch.setattr(checked_blocks, "ROOT", tmp_path)
    return tmp_path / controller_figures.DOC


def test_a_figure_changed_by_hand_fails_the_check_naming_the_block(copy_of_the_doc):
    doc = copy_of_the_doc
    made = blocks(doc)["scenarios-run"]             # what the code gave when the doc was last checked
    check(controller_figures.DOC, "scenarios-run", made)
    total = made.split("**")[1]                      # "230 of 391 scenario cases run"
    doc.write_text(doc.read_text().replace(total, total.replace(" of ", "1 of ", 1)), encoding="utf-8")
    with pytest.raises(StaleDoc, match="scenarios-run.*make docs"):
        check(controller_figures.DOC, "scenarios-run", made)
    row = rows(controller_figures.DOC, "misbehaviour-table")["straight-up-35-to-1"]
    doc.write_text(doc.read_text().replace(row, row.replace(" of 46", " of 47")), encoding="utf-8")
    with pytest.raises(StaleDoc, match="straight-up-35-to-1"):
        check_row(controller_figures.DOC, "misbehaviour-table", row)


def test_make_docs_writes_the_block_and_the_row_the_code_gives(copy_of_the_doc, monkeypatch):
    doc = copy_of_the_doc
    monkeypatch.setattr(checked_blocks, "WRITE", True)
    check(controller_figures.DOC, "scenarios-run", "With the emulated controllers: 1 of 2.\n")
    check_row(controller_figures.DOC, "misbehaviour-table", "| `new-one` | 1 of 2 | 625b.2(d)(5) |")
    assert blocks(doc)["scenarios-run"] == "With the emulated controllers: 1 of 2.\n"
    assert rows(controller_figures.DOC, "misbehaviour-table")["new-one"] == "| `new-one` | 1 of 2 | 625b.2(d)(5) |"
    assert "## Failures name clauses" in doc.read_text()          # the rest of the doc as it was
