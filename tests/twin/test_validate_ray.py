"""The Ray engine, on a local Ray instance with 2 CPUs, gives the same
records and verdicts as the local process pool."""

from pathlib import Path

from twin.validate import validate

ROOT = Path(__file__).resolve().parents[2]


def test_ray_gives_the_same_campaign_as_the_local_pool(tmp_path):
    design = ROOT / "fixtures/towers/standard.yaml"
    local = validate(design, 40, workers=2, seed=500, results=tmp_path / "local.jsonl")
    ray = validate(design, 40, workers=2, seed=500, engine="ray", results=tmp_path / "ray.jsonl")
    assert ray.engine == "ray" and ray.workers == 2
    assert ray.records == local.records
    assert [c.to_json() for c in ray.checks] == [c.to_json() for c in local.checks]
