# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""python-docx behind a document-writing tool: paths, styles, table cells, colours, sizes and
texts the model named or wrote (fixable); a ``.docx`` on disk or downloaded from a document
store on 127.0.0.1 that is corrupt, and a template that lacks a style the tool applies
(ambiguous); a read-only output folder, a file the tool may not read, a file-size quota,
and an installation without ``lxml`` or without python-docx's default template
(unrecoverable).

Labels follow the cause. python-docx raises ``docx.opc.exceptions.PackageNotFoundError``
("Package not found at ...") for a path that is not a file or not a zip package,
``KeyError`` "no style with name ..." for an unknown style, ``ValueError`` for a style of
the wrong type, a heading level outside 0-9, an enum value it does not know, a string
with control characters ("All strings must be XML compatible") or a core property over
255 characters, ``TypeError`` for a length or name of the wrong type, ``IndexError`` for
a table cell, row or paragraph that does not exist, and
``docx.image.exceptions.UnrecognizedImageError`` for an image it cannot read (docs:
https://python-docx.readthedocs.io/en/latest/user/documents.html,
.../user/styles-using.html, .../api/text.html, .../api/table.html, .../api/shared.html,
.../api/document.html ``add_picture``). The model's path, style, index or value -> fixable.
The same parsing failing on a file the model did not write (a ``.docx`` that is
truncated, not a zip, without its main part, with malformed XML, or a logo image that is
corrupt, on disk or from the document store) -> ambiguous; likewise a template on disk
missing a style the tool uses. The operating system's refusals (``PermissionError`` on a
read-only folder or an unreadable file, ``OSError`` EFBIG past the file-size quota) and a
broken installation -> unrecoverable.

Not triggerable: python-docx does no network I/O (no transient case; the document store's
own failures are the tool's HTTP client's); a real disk full is stood in for by
``RLIMIT_FSIZE`` (same write path, EFBIG instead of ENOSPC).
"""

from __future__ import annotations

import importlib
import io
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _files, _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "python-docx"
REQUIRES = ["python-docx>=1.1,<2"]


def _base(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("Quarterly report", level=1)
    doc.add_paragraph("Revenue grew.")
    doc.add_table(rows=2, cols=3)
    doc.save(str(path))


def _model_cases(ctx: Context) -> Iterator[Case]:
    import docx
    from docx.shared import RGBColor

    report = ctx.tmp / "report.docx"
    _base(report)
    (ctx.tmp / "notes.txt").write_text("meeting notes\n")

    def opened() -> Any:
        return docx.Document(str(report))

    def table() -> Any:
        return opened().tables[0]

    def align(value: str) -> None:
        opened().paragraphs[1].alignment = value

    def run_font() -> Any:
        return opened().paragraphs[1].runs[0].font

    out = str(ctx.tmp / "out" / "memo.docx")
    missing = str(ctx.tmp / "reports" / "q3.docx")
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        ("open-missing", "read_document", {"path": missing}, lambda: docx.Document(missing)),
        (
            "open-text-file",
            "read_document",
            {"path": str(ctx.tmp / "notes.txt")},
            lambda: docx.Document(str(ctx.tmp / "notes.txt")),
        ),
        ("open-directory", "read_document", {"path": str(ctx.tmp)}, lambda: docx.Document(str(ctx.tmp))),
        (
            "save-missing-folder",
            "create_document",
            {"path": out, "title": "Memo"},
            lambda: docx.Document().save(out),
        ),
        (
            "style-unknown",
            "add_paragraph",
            {"path": str(report), "text": "Intro", "style": "Heading 10"},
            lambda: opened().add_paragraph("Intro", style="Heading 10"),
        ),
        (
            "style-lowercase",
            "add_paragraph",
            {"path": str(report), "text": "Intro", "style": "heading1"},
            lambda: opened().add_paragraph("Intro", style="heading1"),
        ),
        (
            "style-character",
            "add_paragraph",
            {"path": str(report), "text": "Note", "style": "Emphasis"},
            lambda: opened().add_paragraph("Note", style="Emphasis"),
        ),
        (
            "table-style-unknown",
            "add_table",
            {"path": str(report), "rows": 2, "cols": 2, "style": "Fancy Grid"},
            lambda: opened().add_table(rows=2, cols=2, style="Fancy Grid"),
        ),
        (
            "heading-level-10",
            "add_heading",
            {"path": str(report), "text": "Annex", "level": 10},
            lambda: opened().add_heading("Annex", level=10),
        ),
        (
            "heading-level-negative",
            "add_heading",
            {"path": str(report), "text": "Annex", "level": -1},
            lambda: opened().add_heading("Annex", level=-1),
        ),
        (
            "cell-row-out-of-range",
            "set_cell",
            {"path": str(report), "table": 0, "row": 5, "col": 0, "text": "x"},
            lambda: table().cell(5, 0),
        ),
        (
            "cell-col-out-of-range",
            "set_cell",
            {"path": str(report), "table": 0, "row": 1, "col": 7, "text": "x"},
            lambda: table().cell(1, 7),
        ),
        (
            "table-index",
            "set_cell",
            {"path": str(report), "table": 2, "row": 0, "col": 0, "text": "x"},
            lambda: opened().tables[2],
        ),
        (
            "paragraph-index",
            "edit_paragraph",
            {"path": str(report), "index": 40, "text": "x"},
            lambda: opened().paragraphs[40],
        ),
        (
            "rows-string",
            "add_table",
            {"path": str(report), "rows": "3", "cols": 2},
            lambda: opened().add_table(rows="3", cols=2),
        ),
        (
            "color-name",
            "format_text",
            {"path": str(report), "paragraph": 1, "color": "red"},
            lambda: RGBColor.from_string("red"),
        ),
        (
            "color-with-alpha",
            "format_text",
            {"path": str(report), "paragraph": 1, "color": "FF00FF00"},
            lambda: RGBColor.from_string("FF00FF00"),
        ),
        (
            "color-over-255",
            "format_text",
            {"path": str(report), "paragraph": 1, "rgb": [300, 0, 0]},
            lambda: RGBColor(300, 0, 0),
        ),
        (
            "alignment-lowercase",
            "format_text",
            {"path": str(report), "paragraph": 1, "alignment": "center"},
            lambda: align("center"),
        ),
        (
            "alignment-middle",
            "format_text",
            {"path": str(report), "paragraph": 1, "alignment": "MIDDLE"},
            lambda: align("MIDDLE"),
        ),
        (
            "font-name-number",
            "format_text",
            {"path": str(report), "paragraph": 1, "font": 11},
            lambda: setattr(run_font(), "name", 11),
        ),
        (
            "indent-string",
            "format_text",
            {"path": str(report), "paragraph": 1, "left_indent": "1in"},
            lambda: setattr(opened().paragraphs[1].paragraph_format, "left_indent", "1in"),
        ),
        (
            "page-width-string",
            "set_page",
            {"path": str(report), "page_width": "8.5in"},
            lambda: setattr(opened().sections[0], "page_width", "8.5in"),
        ),
        (
            "section-index",
            "set_page",
            {"path": str(report), "section": 3, "orientation": "LANDSCAPE"},
            lambda: opened().sections[3],
        ),
        (
            "text-nul",
            "add_paragraph",
            {"path": str(report), "text": "total\x00due"},
            lambda: opened().add_paragraph("total\x00due"),
        ),
        (
            "text-vertical-tab",
            "add_paragraph",
            {"path": str(report), "text": "line\x0bbreak"},
            lambda: opened().add_paragraph("line\x0bbreak"),
        ),
        (
            "title-too-long",
            "set_properties",
            {"path": str(report), "title": "Q" * 300},
            lambda: setattr(opened().core_properties, "title", "Q" * 300),
        ),
        (
            "created-string",
            "set_properties",
            {"path": str(report), "created": "2024-01-01"},
            lambda: setattr(opened().core_properties, "created", "2024-01-01"),
        ),
        (
            "style-add-existing",
            "add_style",
            {"path": str(report), "name": "Normal", "type": 1},
            lambda: opened().styles.add_style("Normal", 1),
        ),
        (
            "style-type-unknown",
            "add_style",
            {"path": str(report), "name": "Callout", "type": 9},
            lambda: opened().styles.add_style("Callout", 9),
        ),
        (
            "picture-missing",
            "add_picture",
            {"path": str(report), "image": "logo.png"},
            lambda: opened().add_picture(str(ctx.tmp / "logo.png")),
        ),
        (
            "picture-text-file",
            "add_picture",
            {"path": str(report), "image": str(ctx.tmp / "notes.txt")},
            lambda: opened().add_picture(str(ctx.tmp / "notes.txt")),
        ),
    ]
    for slug, tool, args, fn in calls:
        yield Case(f"docx-{slug}", LIBRARY, f"the model's argument ({slug})", F, None, _catch(fn), tool, args)


def _corrupt_files(ctx: Context) -> dict[str, bytes]:
    good = ctx.tmp / "good.docx"
    _base(good)
    data = good.read_bytes()
    with zipfile.ZipFile(good) as z:
        parts = {n: z.read(n) for n in z.namelist()}

    def rezip(changed: dict[str, bytes | None]) -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for name, body in {**parts, **changed}.items():
                if body is not None:
                    z.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), body)
        return buf.getvalue()

    xml = parts["word/document.xml"]
    return {
        "truncated": data[: len(data) // 2],
        "html-page": b"<html><body><h1>502 Bad Gateway</h1></body></html>\n",
        "empty": b"",
        "no-document-part": rezip({"word/document.xml": None}),
        "no-content-types": rezip({"[Content_Types].xml": None}),
        "malformed-xml": rezip({"word/document.xml": xml[: len(xml) // 2]}),
        "no-styles-part-rel": rezip({"word/_rels/document.xml.rels": b"<Relationships"}),
    }


def _data_cases(ctx: Context) -> Iterator[Case]:
    import docx

    bad = _corrupt_files(ctx)
    inbox = ctx.tmp / "inbox"
    inbox.mkdir()
    for slug, body in bad.items():
        path = inbox / f"{slug}.docx"
        path.write_bytes(body)
        exc = _catch(lambda: [p.text for p in docx.Document(str(path)).paragraphs])
        yield Case(
            f"docx-file-{slug}",
            LIBRARY,
            "document file on disk is corrupt",
            A,
            None,
            exc,
            "read_document",
            {"path": str(path)},
        )

    # a template on disk without the style the tool applies
    template = ctx.tmp / "letterhead.docx"
    doc = docx.Document()
    for style in [s for s in doc.styles if s.name in ("Title", "Heading 1")]:
        style.element.getparent().remove(style.element)
    doc.save(str(template))
    args = {"template": str(template), "title": "Offer letter"}
    exc = _catch(lambda: docx.Document(str(template)).add_paragraph("Offer letter", style="Title"))
    yield Case(
        "docx-template-no-title-style",
        LIBRARY,
        "template on disk lacks a style the tool applies",
        A,
        None,
        exc,
        "create_from_template",
        args,
    )
    args = {"template": str(template), "heading": "Terms"}
    exc = _catch(lambda: docx.Document(str(template)).add_heading("Terms", level=1))
    yield Case(
        "docx-template-no-heading-style",
        LIBRARY,
        "template on disk lacks a style the tool applies",
        A,
        None,
        exc,
        "create_from_template",
        args,
    )

    # a corrupt image the tool reads from the brand folder
    logo = ctx.tmp / "brand-logo.png"
    logo.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 8)
    args = {"path": str(ctx.tmp / "good.docx"), "brand": "acme"}
    exc = _catch(lambda: docx.Document(str(ctx.tmp / "good.docx")).add_picture(str(logo)))
    yield Case(
        "docx-brand-logo-corrupt",
        LIBRARY,
        "image file on disk is corrupt",
        A,
        None,
        exc,
        "add_letterhead",
        args,
    )

    # a document store
    pages = {
        f"/files/{slug}": ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", body)
        for slug, body in bad.items()
    }
    with _serve.documents(pages) as port:
        ctx.name_port(port, "STOREPORT")
        for slug in ("truncated", "no-document-part", "malformed-xml", "html-page"):
            file_id = f"doc-{slug}"
            exc = _catch(lambda: docx.Document(io.BytesIO(_fetch(port, f"/files/{slug}"))))
            yield Case(
                f"docx-store-{slug}",
                LIBRARY,
                "document store answered a corrupt file",
                A,
                None,
                exc,
                "summarize_document",
                {"file_id": file_id},
            )


def _fetch(port: int, path: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
        return response.read()


def _system_cases(ctx: Context) -> Iterator[Case]:
    import docx

    locked = _files.read_only_dir(ctx.tmp / "shared-readonly")
    target = locked / "minutes.docx"
    exc = _files.denied(lambda: docx.Document().save(str(target)))
    args = {"path": str(target), "title": "Minutes"}
    yield Case(
        "docx-save-read-only-folder",
        LIBRARY,
        "output folder is read-only for this user",
        U,
        None,
        exc,
        "create_document",
        args,
    )

    private = ctx.tmp / "private.docx"
    _base(private)
    private.chmod(0o000)
    exc = _files.denied(lambda: docx.Document(str(private)))
    yield Case(
        "docx-open-unreadable",
        LIBRARY,
        "no permission to read the file",
        U,
        None,
        exc,
        "read_document",
        {"path": str(private)},
    )

    big = ctx.tmp / "big.docx"
    with _files.file_size_limit(4096):
        exc = _catch(lambda: docx.Document().save(str(big)))
    yield Case(
        "docx-save-size-quota",
        LIBRARY,
        "file-size quota reached while saving",
        U,
        None,
        exc,
        "create_document",
        {"path": str(big), "title": "Big"},
    )

    args = {"path": str(ctx.tmp / "new.docx"), "title": "New"}
    with _pkgcopy.broken_install(ctx.tmp, ["docx"], hide=("lxml",)):
        exc = _catch(lambda: importlib.import_module("docx"))
    yield Case(
        "docx-lxml-not-installed", LIBRARY, "lxml not installed", U, None, exc, "create_document", args
    )
    with _pkgcopy.broken_install(
        ctx.tmp, ["docx", "lxml", "typing_extensions"], drop=("docx/templates/default.docx",)
    ):
        exc = _catch(lambda: importlib.import_module("docx").Document())
    yield Case(
        "docx-default-template-missing",
        LIBRARY,
        "installed default template missing",
        U,
        None,
        exc,
        "create_document",
        args,
    )


def cases(ctx: Context) -> Iterator[Case]:
    yield from _model_cases(ctx)
    yield from _data_cases(ctx)
    yield from _system_cases(ctx)
