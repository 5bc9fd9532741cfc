"""bench adapters and the --adapter options as a user meets them: the list
(name first), one adapter in full, the template, and wrong input answered
with exit status 2 and one line."""

from __future__ import annotations

from bench.cli import main


def test_the_list_names_each_adapter_first_the_bench_s_own_protocol_leading(capsys):
    assert main(["adapters"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines][:2] == ["tablebench", "ascii-sentence"]


def test_one_adapter_in_full_names_its_checks_and_misbehaviours(capsys):
    assert main(["adapters", "ascii-sentence"]) == 0
    out = capsys.readouterr().out
    assert "response 0.8 s, 2 retries" in out and "sentence-retransmits" in out and "never-naks" in out


def test_the_template_is_written_once_and_not_over_a_folder_in_use(tmp_path, capsys):
    assert main(["adapters", "--template", str(tmp_path / "t")]) == 0
    assert (tmp_path / "t" / "tablebench_json_lines.py").exists()
    assert main(["adapters", "--template", str(tmp_path / "t")]) == 2
    assert "not a new or empty folder" in capsys.readouterr().err


def test_wrong_adapter_options_are_one_line_and_status_2(capsys):
    cases = [(["adapters", "acme-wheel"], "no such adapter"),
             (["emulate", "--game", "sic-bo", "--listen", "127.0.0.1:0", "--adapter", "ascii-sentence",
               "--protocol", "2"], "versions are the bench protocol's"),
             (["emulate", "--game", "sic-bo", "--listen", "127.0.0.1:0", "--adapter", "ascii-sentence",
               "--misbehave-link", "ignores-window"], "adapter ascii-sentence has no such misbehaviour"),
             (["conformance", "--controller", "emulated", "--adapter", "ascii-sentence", "--protocol", "2"],
              "versions are the bench protocol's"),
             (["conformance", "--controller", "emulated", "--adapter", "ascii-sentence", "--check", "window"],
              "no check is called 'window'")]
    for args, words in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], (args, err)
