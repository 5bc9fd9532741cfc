"""The JSON Schemas of every command's ``--json`` lines (tablebench_io.json_lines; docs/json.md)."""
