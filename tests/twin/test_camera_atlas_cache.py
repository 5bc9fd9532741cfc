"""The die texture atlas is drawn once a process for each set of dice
colours (twin/camera/textures.py, issue 42: it was redrawn every frame,
24 ms of a 117 ms frame), and a frame is the same bytes whether its atlas
was drawn for it or taken from the cache."""

from __future__ import annotations

from twin.camera import textures
from twin.camera.frames import Studio
from twin.shipped import shipped_design
from twin.tower import drop, load_design


def test_frames_are_the_same_bytes_with_the_atlas_drawn_once(monkeypatch):
    design = load_design(shipped_design("standard", "tower"))
    results = [drop(design, seed) for seed in (3, 3, 4)]
    drawn = []
    original = textures._draw_die_atlas

    def counted(*args):
        drawn.append(args)
        return original(*args)
    monkeypatch.setattr(textures, "_draw_die_atlas", counted)
    monkeypatch.setattr(textures, "_ATLASES", {})

    studio = Studio(design, "tower")
    cached = [studio.rest_of_drop(result).digest for result in results]
    studio.close()
    # seed 3 twice: the same variation, so the same colours: drawn for the first frame only
    assert len(drawn) == len(set(drawn)) <= 2
    assert cached[0] == cached[1]

    textures._ATLASES.clear()                 # each frame now draws its atlas afresh, as before
    fresh = []
    for result in results:
        textures._ATLASES.clear()
        studio = Studio(design, "tower")
        fresh.append(studio.rest_of_drop(result).digest)
        studio.close()
    assert fresh == cached
