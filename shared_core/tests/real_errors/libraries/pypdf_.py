"""pypdf: PDFs a tool reads, splits, merges and writes, made for real with pypdf's own writer in
the module's temporary directory. Page numbers, page ranges, angles, sizes, passwords and other
arguments the model wrote; PDF files on disk that are corrupt (truncated, an HTML page, empty,
a broken cross-reference table, a cyclic page tree, a dangling or malformed object); encrypted
files (AES-256, no password or a wrong one; certificate encryption pypdf cannot open); a
decompression bomb in a content stream; and the operating system's refusals (a file or folder
an ordinary user may not read or write, a full device ``/dev/full``, the ``RLIMIT_FSIZE`` file
size quota).

Labels follow the corpus' conventions (``libraries/pillow_.py``, ``csv_.py``, ``duckdb_.py``,
``ssh_paramiko.py``): a value the model wrote in the call (a page past the last one, a range
pypdf cannot parse, an angle, a password for a file that is not encrypted, PDF bytes that are
not a PDF, a path that is a folder) is fixable; the reader failing on a file the tool read is
ambiguous, and so is a path that does not exist (to read, or a folder to save into) and a PDF
without the form the tool was asked to fill; an encrypted file with no password or a wrong
one (as ``ssh_paramiko.py``'s encrypted key and wrong passphrase), an encryption handler pypdf
does not implement, the decompression limit (as ``pillow_.py``'s bomb), permission denied, a
full device and the file size quota are unrecoverable. A PDF on a local disk has no transient
failure (no server, nothing pypdf waits on), so none is produced."""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from ._files import denied, file_size_limit, read_only_dir

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pypdf"
REQUIRES = ["pypdf>=7.1,<8"]


def _pdf(pages: int = 3) -> bytes:
    from pypdf import PdfWriter

    w = PdfWriter()
    for _ in range(pages):
        w.add_blank_page(612, 792)
    w.add_metadata({"/Title": "Quarterly report"})
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def _with_contents(data: bytes) -> bytes:
    """A one-page PDF whose content stream is ``data``, stored as FlateDecode."""
    from pypdf import PdfWriter
    from pypdf.generic import NameObject, StreamObject

    w = PdfWriter()
    page = w.add_blank_page(612, 792)
    stream = StreamObject()
    stream._data = data
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Contents")] = w._add_object(stream)
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def _deflate_bomb(periods: int) -> bytes:
    """A zlib stream written bit by bit (not by a compressor, whose output varies between zlib
    builds): one fixed-Huffman block, a literal ``0`` and then ``8 * periods`` copies of the
    longest match (258 bytes, distance 1), 13 bits each; 8 of them fill 13 bytes, repeated.
    It inflates to 258 bytes per 13 bits; the reader's limit stops it before it ends."""
    match = [1, 1, 0, 0, 0, 1, 0, 1] + [0] * 5  # length code 285 (258), then distance code 0
    bits = [1, 1, 0] + [0, 1, 1, 0, 0, 0, 0, 0] + match * 16  # BFINAL, BTYPE=01, literal "0"
    packed = bytes(sum(bit << i for i, bit in enumerate(bits[k : k + 8])) for k in range(0, 120, 8))
    return b"\x78\x01" + packed[:2] + packed[2:15] * periods


def _encrypted(password: str) -> bytes:
    from pypdf import PdfWriter

    w = PdfWriter(clone_from=io.BytesIO(_pdf()))
    w.encrypt(password, algorithm="AES-256")
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, cause, the arguments the model wrote, call): an argument rejected by pypdf."""
    from pypdf import PageRange, PdfReader, PdfWriter, Transformation
    from pypdf.generic import RectangleObject

    pdf = _pdf()
    reader = PdfReader(io.BytesIO(pdf))
    encoded = base64.b64encode(pdf)

    def writer() -> Any:
        return PdfWriter(clone_from=io.BytesIO(pdf))

    return [
        # pages the model named
        ("page-past-end", "page index past the last page", {"page": 5}, lambda: reader.pages[5]),
        ("page-negative", "negative page index beyond the first", {"page": -9}, lambda: reader.pages[-9]),
        ("page-string", "page number as a string", {"page": "2"}, lambda: reader.pages["2"]),
        ("get-page-past-end", "get_page past the last page", {"page": 10}, lambda: reader.get_page(10)),
        ("append-range-past-end", "page range past the last page", {"pages": [0, 10]}, lambda: PdfWriter().append(io.BytesIO(pdf), pages=(0, 10))),
        ("append-pages-string", "pages given as '1-2'", {"pages": "1-2"}, lambda: PdfWriter().append(io.BytesIO(pdf), pages="1-2")),
        ("annotation-page", "annotation on a page that does not exist", {"page_number": 8, "annotation": {}}, lambda: writer().add_annotation(page_number=8, annotation={})),
        ("named-destination-page", "destination on a page that does not exist", {"title": "intro", "page_number": 10}, lambda: writer().add_named_destination("intro", 10)),
        ("insert-blank-index", "blank page inserted past the end", {"width": 100, "height": 100, "index": 5}, lambda: PdfWriter().insert_blank_page(100, 100, index=5)),
        ("image-name", "image name not on the page", {"page": 0, "image": "img0.png"}, lambda: reader.pages[0].images["img0.png"]),
        ("image-index", "image index not on the page", {"page": 0, "image": 3}, lambda: reader.pages[0].images[3]),
        # page ranges, angles, sizes
        ("pagerange-dash", "page range written 1-3", {"pages": "1-3"}, lambda: PageRange("1-3")),
        ("pagerange-words", "page range in words", {"pages": "first:last"}, lambda: PageRange("first:last")),
        ("rotate-45", "rotation not a multiple of 90", {"page": 0, "angle": 45}, lambda: reader.pages[0].rotate(45)),
        ("rotate-string", "rotation as a string", {"page": 0, "angle": "90"}, lambda: reader.pages[0].rotate("90")),
        ("scale-string", "scale factor as a string", {"page": 0, "factor": "2x"}, lambda: reader.pages[0].scale_by("2x")),
        ("transform-string", "rotation angle in words", {"angle": "ninety"}, lambda: Transformation().rotate("ninety")),
        ("rectangle-three", "page box with three numbers", {"mediabox": [0, 0, 612]}, lambda: RectangleObject([0, 0, 612])),
        ("blank-page-no-size", "blank page with no size and no page to copy it from", {}, lambda: PdfWriter().add_blank_page()),
        # other arguments
        ("add-page-string", "page passed as a string", {"page": "page1"}, lambda: PdfWriter().add_page("page1")),
        ("metadata-string", "metadata as a string, not a mapping", {"metadata": "title"}, lambda: PdfWriter().add_metadata("title")),
        ("encrypt-algorithm", "encryption algorithm that does not exist", {"password": "x", "algorithm": "AES-512"}, lambda: PdfWriter().encrypt("x", algorithm="AES-512")),
        ("page-label-style", "page label style that does not exist", {"page_index_from": 0, "page_index_to": 1, "style": "/X"}, lambda: writer().set_page_label(0, 1, style="/X")),
        ("page-label-empty", "page label with neither style nor prefix", {"page_index_from": 2, "page_index_to": 2}, lambda: writer().set_page_label(2, 2)),
        ("extraction-mode", "text extraction mode that does not exist", {"page": 0, "extraction_mode": "fancy"}, lambda: reader.pages[0].extract_text(extraction_mode="fancy")),
        ("attachment-name", "attachment name as a number", {"filename": 5, "data": "x"}, lambda: PdfWriter().add_attachment(5, b"x")),
        ("password-number", "password as a number", {"password": 1234}, lambda: PdfReader(io.BytesIO(_encrypted("s3cret")), password=1234)),
        ("decrypt-not-encrypted", "password for a file that is not encrypted", {"password": "s3cret"}, lambda: PdfReader(io.BytesIO(pdf)).decrypt("s3cret")),
        ("bytes-text", "PDF content passed as text", {"pdf": "%PDF-1.7 ..."}, lambda: PdfReader(io.BytesIO("%PDF-1.7 ..."))),
        ("bytes-base64", "PDF content still base64-encoded", {"pdf": encoded.decode()}, lambda: PdfReader(io.BytesIO(encoded))),
    ]  # fmt: skip


def cases(ctx: Context) -> Iterator[Case]:
    from pypdf import PdfReader, PdfWriter

    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str, args: dict[str, Any]) -> Case:
        return Case(f"pypdf-{slug}", LIBRARY, cause, kind, None, exc, tool, arguments=args)

    for slug, cause, args, fn in model_calls():
        yield case(slug, cause, F, _catch(fn), "edit_pdf", args)

    tmp = ctx.tmp
    pdf = _pdf()

    def at(target: Any, **args: Any) -> dict[str, Any]:
        """The arguments of a call on a file: the path the model gave (and its other values)."""
        return {"path": str(tmp / target), **args}

    def read(name: str, **kwargs: Any) -> Callable[[], Any]:
        return lambda: len(PdfReader(tmp / name, **kwargs).pages)

    def write_to(target: Any) -> Callable[[], Any]:
        return lambda: PdfWriter(clone_from=io.BytesIO(pdf)).write(target)

    # paths the model gave that are folders
    (tmp / "invoices").mkdir()
    exc = _catch(read("invoices"))
    yield case("read-directory", "path to read is a folder", F, exc, "read_pdf", at("invoices"))
    exc = _catch(write_to(tmp / "invoices"))
    yield case("write-directory", "path to save is a folder", F, exc, "write_pdf", at("invoices"))

    # files on disk
    exc = _catch(read("contract.pdf"))
    yield case("file-missing", "PDF file does not exist", A, exc, "read_pdf", at("contract.pdf"))
    exc = _catch(write_to(tmp / "out" / "merged.pdf"))
    args = at("out/merged.pdf")
    yield case("save-folder-missing", "folder to save into does not exist", A, exc, "write_pdf", args)
    (tmp / "cut.pdf").write_bytes(pdf[: len(pdf) // 2])
    yield case("file-truncated", "PDF file cut short", A, _catch(read("cut.pdf")), "read_pdf", at("cut.pdf"))
    yield case(
        "file-truncated-strict",
        "PDF file cut short (strict)",
        A,
        _catch(read("cut.pdf", strict=True)),
        "read_pdf",
        at("cut.pdf"),
    )
    (tmp / "statement.pdf").write_text("<html><body><h1>Sign in to continue</h1></body></html>")
    exc = _catch(read("statement.pdf"))
    yield case("file-html", "downloaded file is an HTML page", A, exc, "read_pdf", at("statement.pdf"))
    (tmp / "empty.pdf").write_bytes(b"")
    yield case("file-empty", "PDF file is empty", A, _catch(read("empty.pdf")), "read_pdf", at("empty.pdf"))
    (tmp / "xref.pdf").write_bytes(re.sub(rb"startxref\n\d+", b"startxref\n999999", pdf))
    exc = _catch(read("xref.pdf", strict=True))
    yield case("file-xref", "cross-reference table points nowhere", A, exc, "read_pdf", at("xref.pdf"))
    (tmp / "cycle.pdf").write_bytes(
        _pdf(1).replace(b"/Type /Page\n/Resources", b"/Type /Pages\n/Kids [ 2 0 R ]\n/Resources")
    )
    exc = _catch(read("cycle.pdf"))
    yield case("file-page-cycle", "page tree that refers to itself", A, exc, "read_pdf", at("cycle.pdf"))
    (tmp / "dangling.pdf").write_bytes(_pdf().replace(b"/Root 3 0 R", b"/Root 9 0 R"))
    exc = _catch(read("dangling.pdf", strict=True))
    args = at("dangling.pdf")
    yield case("file-dangling-object", "trailer names an object that is not there", A, exc, "read_pdf", args)
    (tmp / "malformed.pdf").write_bytes(re.sub(rb"/Kids \[ (\d+) 0 R", rb"/Kids [ \1 0 X", pdf, count=1))
    exc = _catch(read("malformed.pdf", strict=True))
    args = at("malformed.pdf")
    yield case("file-malformed-object", "malformed object in the page tree", A, exc, "read_pdf", args)
    form = PdfWriter(clone_from=io.BytesIO(pdf))
    exc = _catch(lambda: form.update_page_form_field_values(form.pages[0], {"name": "Ann"}))
    args = {"page": 0, "fields": {"name": "Ann"}}
    yield case("no-form", "form fields to fill in a PDF without a form", A, exc, "fill_pdf_form", args)

    # encryption
    (tmp / "salary.pdf").write_bytes(_encrypted("s3cret"))
    exc = _catch(lambda: PdfReader(tmp / "salary.pdf").pages[0].extract_text())
    yield case(
        "encrypted-no-password", "encrypted file, no password given", U, exc, "read_pdf", at("salary.pdf")
    )
    exc = _catch(lambda: PdfReader(tmp / "salary.pdf").metadata)
    args = at("salary.pdf")
    yield case("encrypted-metadata", "metadata of an encrypted file, no password", U, exc, "read_pdf", args)
    exc = _catch(read("salary.pdf", password="wrong"))
    args = at("salary.pdf", password="wrong")
    yield case("encrypted-wrong-password", "wrong password for the file", U, exc, "read_pdf", args)
    pubsec = _encrypted("s3cret").replace(b"/Filter /Standard", b"/Filter /Adobe.PubSec")
    (tmp / "signed.pdf").write_bytes(pubsec)
    exc = _catch(read("signed.pdf"))
    args = at("signed.pdf")
    yield case("encrypted-certificate", "certificate (public-key) encryption", U, exc, "read_pdf", args)
    # a content stream inflating to 82 MB, past pypdf's 75 MB decompression limit
    (tmp / "bomb.pdf").write_bytes(_with_contents(_deflate_bomb(40_000)))
    exc = _catch(lambda: PdfReader(tmp / "bomb.pdf").pages[0].get_contents().get_data())
    args = at("bomb.pdf")
    yield case("decompression-limit", "content stream past the decompression limit", U, exc, "read_pdf", args)

    # the operating system's refusals
    private = tmp / "medical.pdf"
    private.write_bytes(pdf)
    private.chmod(0o000)
    tmp.chmod(0o711)
    exc = denied(read("medical.pdf"))
    yield case("permission-read", "file the tool may not read", U, exc, "read_pdf", at("medical.pdf"))
    locked = read_only_dir(tmp / "shared")
    exc = denied(write_to(locked / "merged.pdf"))
    args = at(locked / "merged.pdf")
    yield case("permission-folder", "folder the tool may not write into", U, exc, "write_pdf", args)
    frozen = tmp / "final.pdf"
    frozen.write_bytes(pdf)
    frozen.chmod(0o444)
    exc = denied(write_to(frozen))
    yield case("permission-overwrite", "read-only file to overwrite", U, exc, "write_pdf", at(frozen))
    exc = _catch(write_to("/dev/full"))
    yield case("disk-full", "no space left on the device", U, exc, "write_pdf", {"path": "/dev/full"})
    with file_size_limit(512):
        exc = _catch(write_to(tmp / "big.pdf"))
    yield case(
        "file-size-limit", "file size quota (RLIMIT_FSIZE) reached", U, exc, "write_pdf", at("big.pdf")
    )
