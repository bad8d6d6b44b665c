"""Pillow: image bytes (base64), sizes, modes, colours and formats the model passed in its
arguments (fixable); image files on disk (ambiguous); the decompression-bomb limit
(unrecoverable)."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pillow"
REQUIRES = ["pillow>=10.3,<13"]


def _png(size: tuple[int, int] = (8, 8)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(out, "PNG")
    return out.getvalue()


def _open_b64(text: str) -> None:
    from PIL import Image

    with Image.open(io.BytesIO(base64.b64decode(text))) as im:
        im.load()


def _open_bytes(data: bytes) -> None:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        im.load()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """(slug, the model's arguments, call). Image bytes travel base64 in the arguments (the
    ``bytes-*`` cases: the bytes the tool decoded from them); the operations act on a 16x16
    RGB image the tool holds."""
    from PIL import Image, ImageColor, ImageFilter, ImageOps

    png = _png()
    b64 = _b64(png)
    cut = _b64(_png((64, 64))[:70])
    text = _b64(b"hello, this is text")
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"/>'
    crc = png[:30] + b"\x00\x00" + png[32:]
    im = Image.new("RGB", (16, 16))
    return [
        ("b64-truncated-header", {"image_base64": b64[:12]}, lambda: _open_b64(b64[:12])),
        ("b64-truncated-data", {"image_base64": cut}, lambda: _open_b64(cut)),
        ("b64-data-url-prefix", {"image_base64": "data:image/png;base64," + b64}, lambda: _open_b64("data:image/png;base64," + b64)),
        ("b64-not-image", {"image_base64": text}, lambda: _open_b64(text)),
        ("b64-bad-padding", {"image_base64": b64[:-3]}, lambda: _open_b64(b64[:-3])),
        ("bytes-svg", {"image_base64": _b64(svg)}, lambda: _open_bytes(svg)),
        ("bytes-empty", {"image_base64": ""}, lambda: _open_bytes(b"")),
        ("bytes-png-signature-only", {"image_base64": _b64(png[:8])}, lambda: _open_bytes(png[:8])),
        ("bytes-crc-broken", {"image_base64": _b64(crc)}, lambda: _open_bytes(crc)),
        ("new-unknown-mode", {"mode": "RGBX8", "size": [4, 4]}, lambda: Image.new("RGBX8", (4, 4))),
        ("new-negative-size", {"mode": "RGB", "size": [-4, 4]}, lambda: Image.new("RGB", (-4, 4))),
        ("new-size-not-tuple", {"mode": "RGB", "size": "640x480"}, lambda: Image.new("RGB", "640x480")),
        ("new-color-name", {"mode": "RGB", "size": [4, 4], "color": "reddish"}, lambda: Image.new("RGB", (4, 4), "reddish")),
        ("convert-unknown-mode", {"convert_to": "CMYKA"}, lambda: im.convert("CMYKA")),
        ("resize-zero", {"size": [0, 10]}, lambda: im.resize((0, 10))),
        ("resize-float", {"size": [10.5, 10]}, lambda: im.resize((10.5, 10))),
        ("resize-bad-filter", {"size": [8, 8], "resample": 99}, lambda: im.resize((8, 8), 99)),
        ("crop-inverted-box", {"box": [10, 10, 5, 5]}, lambda: im.crop((10, 10, 5, 5))),
        ("crop-three-values", {"box": [0, 0, 5]}, lambda: im.crop((0, 0, 5))),
        ("rotate-string-angle", {"angle": "90deg"}, lambda: im.rotate("90deg")),
        ("save-unknown-extension", {"format": "JPG2"}, lambda: im.save(io.BytesIO(), format="JPG2")),
        ("save-rgba-as-jpeg", {"mode": "RGBA", "size": [4, 4], "format": "JPEG"}, lambda: Image.new("RGBA", (4, 4)).save(io.BytesIO(), "JPEG")),
        ("save-no-format", {}, lambda: im.save(io.BytesIO())),
        ("getrgb-unknown", {"color": "blurple"}, lambda: ImageColor.getrgb("blurple")),
        ("getrgb-bad-hex", {"color": "#12345"}, lambda: ImageColor.getrgb("#12345")),
        ("getrgb-rgb-out-of-range", {"color": "rgb(300, 0)"}, lambda: ImageColor.getrgb("rgb(300, 0)")),
        ("filter-kernel-size", {"kernel_size": [2, 2], "kernel": [1, 1, 1, 1]}, lambda: im.filter(ImageFilter.Kernel((2, 2), [1, 1, 1, 1]))),
        ("filter-rank-even", {"median_size": 4}, lambda: im.filter(ImageFilter.MedianFilter(4))),
        ("paste-size-mismatch", {"overlay_size": [4, 4], "box": [0, 0, 8, 8]}, lambda: im.paste(Image.new("RGB", (4, 4)), (0, 0, 8, 8))),
        ("blend-size-mismatch", {"other_size": [8, 8], "alpha": 0.5}, lambda: Image.blend(im, Image.new("RGB", (8, 8)), 0.5)),
        ("blend-mode-mismatch", {"other_mode": "L", "alpha": 0.5}, lambda: Image.blend(im, Image.new("L", (16, 16)), 0.5)),
        ("getpixel-out-of-range", {"xy": [40, 40]}, lambda: im.getpixel((40, 40))),
        ("point-bad-table", {"table": [1, 2, 3]}, lambda: im.point([1, 2, 3])),
        ("expand-negative-border", {"border": [1, 2, 3]}, lambda: ImageOps.expand(im, border=(1, 2, 3))),
    ]  # fmt: skip


def cases(ctx: Context) -> Iterator[Case]:
    from PIL import Image

    for name, args, fn in model_calls():
        exc = _catch(fn)
        cause = f"image argument ({name})"
        yield Case(f"pillow-{name}", LIBRARY, cause, F, None, exc, "edit_image", arguments=args)

    # files the tool read: the arguments hold only the path
    photo = ctx.tmp / "photo.jpg"
    exc = _catch(lambda: Image.open(photo))
    yield Case(
        "pillow-file-missing",
        LIBRARY,
        "file does not exist",
        A,
        None,
        exc,
        "load_image",
        arguments={"path": str(photo)},
    )
    corrupt = ctx.tmp / "scan.png"
    corrupt.write_bytes(_png((64, 64))[:60])
    exc = _catch(lambda: Image.open(corrupt).load())
    cause = "image file on disk cut short"
    yield Case(
        "pillow-file-truncated", LIBRARY, cause, A, None, exc, "load_image", arguments={"path": str(corrupt)}
    )
    fake = ctx.tmp / "avatar.jpg"
    fake.write_text("<html><body>404 Not Found</body></html>")
    exc = _catch(lambda: Image.open(fake))
    cause = "downloaded file is an HTML page"
    yield Case("pillow-file-html", LIBRARY, cause, A, None, exc, "load_image", arguments={"path": str(fake)})

    big = _png((2100, 2100))

    def bomb() -> None:
        saved = Image.MAX_IMAGE_PIXELS
        Image.MAX_IMAGE_PIXELS = 1_000_000
        try:
            Image.open(io.BytesIO(big))
        finally:
            Image.MAX_IMAGE_PIXELS = saved

    yield Case(
        "pillow-decompression-bomb",
        LIBRARY,
        "image beyond the pixel limit",
        U,
        None,
        _catch(bomb),
        "edit_image",
        # the image's base64 (23,456 chars) is stored as its first 200 chars
        arguments={"value": _b64(big)[:200] + "..."},
    )
