"""``input_text_parts``: neutral content as Responses input content, shared by the wire
format and the Agents SDK adapter (whose model input is Responses input items)."""

from __future__ import annotations

from toolerr.adapters import input_text_parts


def test_text_blocks_become_input_text_parts_and_the_rest_is_kept() -> None:
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    odd = {"type": "text", "text": 3}
    converted = input_text_parts([image, {"type": "text", "text": "[toolerr] retry"}, odd, "raw"])
    assert converted == [image, {"type": "input_text", "text": "[toolerr] retry"}, odd, "raw"]
    assert converted[0] is image and converted[2] is odd
    assert input_text_parts("Error: 503") == "Error: 503"


def test_blocks_of_the_content_converted_are_kept_as_they_are() -> None:
    own = {"type": "text", "text": "the tool's own block"}
    note = {"type": "text", "text": "[toolerr] retry"}
    converted = input_text_parts([own, note], [own])
    assert converted == [own, {"type": "input_text", "text": "[toolerr] retry"}]
    assert converted[0] is own
    assert input_text_parts([own]) == [{"type": "input_text", "text": "the tool's own block"}]
