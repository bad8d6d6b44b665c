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


def model_calls() -> list[tuple[str, Callable[[], Any]]]:
    from PIL import Image, ImageColor, ImageFilter, ImageOps

    png = _png()
    b64 = base64.b64encode(png).decode()
    im = Image.new("RGB", (16, 16))
    return [
        ("b64-truncated-header", lambda: _open_b64(b64[:12])),
        ("b64-truncated-data", lambda: _open_b64(base64.b64encode(_png((64, 64))[:70]).decode())),
        ("b64-data-url-prefix", lambda: _open_b64("data:image/png;base64," + b64)),
        ("b64-not-image", lambda: _open_b64(base64.b64encode(b"hello, this is text").decode())),
        ("b64-bad-padding", lambda: _open_b64(b64[:-3])),
        ("bytes-svg", lambda: _open_bytes(b'<svg xmlns="http://www.w3.org/2000/svg"/>')),
        ("bytes-empty", lambda: _open_bytes(b"")),
        ("bytes-png-signature-only", lambda: _open_bytes(png[:8])),
        ("bytes-crc-broken", lambda: _open_bytes(png[:30] + b"\x00\x00" + png[32:])),
        ("new-unknown-mode", lambda: Image.new("RGBX8", (4, 4))),
        ("new-negative-size", lambda: Image.new("RGB", (-4, 4))),
        ("new-size-not-tuple", lambda: Image.new("RGB", "640x480")),
        ("new-color-name", lambda: Image.new("RGB", (4, 4), "reddish")),
        ("convert-unknown-mode", lambda: im.convert("CMYKA")),
        ("resize-zero", lambda: im.resize((0, 10))),
        ("resize-float", lambda: im.resize((10.5, 10))),
        ("resize-bad-filter", lambda: im.resize((8, 8), 99)),
        ("crop-inverted-box", lambda: im.crop((10, 10, 5, 5))),
        ("crop-three-values", lambda: im.crop((0, 0, 5))),
        ("rotate-string-angle", lambda: im.rotate("90deg")),
        ("save-unknown-extension", lambda: im.save(io.BytesIO(), format="JPG2")),
        ("save-rgba-as-jpeg", lambda: Image.new("RGBA", (4, 4)).save(io.BytesIO(), "JPEG")),
        ("save-no-format", lambda: im.save(io.BytesIO())),
        ("getrgb-unknown", lambda: ImageColor.getrgb("blurple")),
        ("getrgb-bad-hex", lambda: ImageColor.getrgb("#12345")),
        ("getrgb-rgb-out-of-range", lambda: ImageColor.getrgb("rgb(300, 0)")),
        ("filter-kernel-size", lambda: im.filter(ImageFilter.Kernel((2, 2), [1, 1, 1, 1]))),
        ("filter-rank-even", lambda: im.filter(ImageFilter.MedianFilter(4))),
        ("paste-size-mismatch", lambda: im.paste(Image.new("RGB", (4, 4)), (0, 0, 8, 8))),
        ("blend-size-mismatch", lambda: Image.blend(im, Image.new("RGB", (8, 8)), 0.5)),
        ("blend-mode-mismatch", lambda: Image.blend(im, Image.new("L", (16, 16)), 0.5)),
        ("getpixel-out-of-range", lambda: im.getpixel((40, 40))),
        ("point-bad-table", lambda: im.point([1, 2, 3])),
        ("expand-negative-border", lambda: ImageOps.expand(im, border=(1, 2, 3))),
    ]


def cases(ctx: Context) -> Iterator[Case]:
    from PIL import Image

    for name, fn in model_calls():
        exc = _catch(fn)
        yield Case(f"pillow-{name}", LIBRARY, f"image argument ({name})", F, None, exc, "edit_image")

    exc = _catch(lambda: Image.open(ctx.tmp / "photo.jpg"))
    yield Case("pillow-file-missing", LIBRARY, "file does not exist", A, None, exc, "load_image")
    corrupt = ctx.tmp / "scan.png"
    corrupt.write_bytes(_png((64, 64))[:60])
    exc = _catch(lambda: Image.open(corrupt).load())
    yield Case("pillow-file-truncated", LIBRARY, "image file on disk cut short", A, None, exc, "load_image")
    fake = ctx.tmp / "avatar.jpg"
    fake.write_text("<html><body>404 Not Found</body></html>")
    exc = _catch(lambda: Image.open(fake))
    yield Case("pillow-file-html", LIBRARY, "downloaded file is an HTML page", A, None, exc, "load_image")

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
    )
