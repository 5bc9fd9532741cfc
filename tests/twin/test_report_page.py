"""A report page a regulator files stands alone: what the check of one refuses."""

import base64
import io

import pytest
from PIL import Image

from tablebench_io.report_page import checked_images


def png_uri() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), "red").save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def test_a_page_with_its_images_inside_passes_and_gives_them():
    svg = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg"/>').decode()
    page = f'<img src="{png_uri()}"><a href="#verdict">v</a><img src="data:image/svg+xml;base64,{svg}">'
    assert [mime for mime, _ in checked_images(page)] == ["image/png", "image/svg+xml"]


@pytest.mark.parametrize("page, words", [
    ('<img src="https://cdn.example/chart.png">', "refers outside itself"),
    ('<link rel="stylesheet" href="style.css">', "refers outside itself"),
    (f'<img src="data:image/png;base64,{base64.b64encode(b"not a png").decode()}">', "image 1 (image/png) does not decode"),
    (f'<img src="data:image/svg+xml;base64,{base64.b64encode(b"<html/>").decode()}">', "does not decode"),
])
def test_a_page_that_is_not_whole_is_refused_saying_why(page, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        checked_images(page)
