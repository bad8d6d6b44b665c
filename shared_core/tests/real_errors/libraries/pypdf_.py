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


def model_calls() -> list[tuple[str, str, Callable[[], Any]]]:
    """(slug, cause, call): an argument the model wrote, rejected by pypdf."""
    from pypdf import PageRange, PdfReader, PdfWriter, Transformation
    from pypdf.generic import RectangleObject

    pdf = _pdf()
    reader = PdfReader(io.BytesIO(pdf))

    def writer() -> Any:
        return PdfWriter(clone_from=io.BytesIO(pdf))

    return [
        # pages the model named
        ("page-past-end", "page index past the last page", lambda: reader.pages[5]),
        ("page-negative", "negative page index beyond the first", lambda: reader.pages[-9]),
        ("page-string", "page number as a string", lambda: reader.pages["2"]),
        ("get-page-past-end", "get_page past the last page", lambda: reader.get_page(10)),
        ("append-range-past-end", "page range past the last page", lambda: PdfWriter().append(io.BytesIO(pdf), pages=(0, 10))),
        ("append-pages-string", "pages given as '1-2'", lambda: PdfWriter().append(io.BytesIO(pdf), pages="1-2")),
        ("annotation-page", "annotation on a page that does not exist", lambda: writer().add_annotation(page_number=8, annotation={})),
        ("named-destination-page", "destination on a page that does not exist", lambda: writer().add_named_destination("intro", 10)),
        ("insert-blank-index", "blank page inserted past the end", lambda: PdfWriter().insert_blank_page(100, 100, index=5)),
        ("image-name", "image name not on the page", lambda: reader.pages[0].images["img0.png"]),
        ("image-index", "image index not on the page", lambda: reader.pages[0].images[3]),
        # page ranges, angles, sizes
        ("pagerange-dash", "page range written 1-3", lambda: PageRange("1-3")),
        ("pagerange-words", "page range in words", lambda: PageRange("first:last")),
        ("rotate-45", "rotation not a multiple of 90", lambda: reader.pages[0].rotate(45)),
        ("rotate-string", "rotation as a string", lambda: reader.pages[0].rotate("90")),
        ("scale-string", "scale factor as a string", lambda: reader.pages[0].scale_by("2x")),
        ("transform-string", "rotation angle in words", lambda: Transformation().rotate("ninety")),
        ("rectangle-three", "page box with three numbers", lambda: RectangleObject([0, 0, 612])),
        ("blank-page-no-size", "blank page with no size and no page to copy it from", lambda: PdfWriter().add_blank_page()),
        # other arguments
        ("add-page-string", "page passed as a string", lambda: PdfWriter().add_page("page1")),
        ("metadata-string", "metadata as a string, not a mapping", lambda: PdfWriter().add_metadata("title")),
        ("encrypt-algorithm", "encryption algorithm that does not exist", lambda: PdfWriter().encrypt("x", algorithm="AES-512")),
        ("page-label-style", "page label style that does not exist", lambda: writer().set_page_label(0, 1, style="/X")),
        ("page-label-empty", "page label with neither style nor prefix", lambda: writer().set_page_label(2, 2)),
        ("extraction-mode", "text extraction mode that does not exist", lambda: reader.pages[0].extract_text(extraction_mode="fancy")),
        ("attachment-name", "attachment name as a number", lambda: PdfWriter().add_attachment(5, b"x")),
        ("password-number", "password as a number", lambda: PdfReader(io.BytesIO(_encrypted("s3cret")), password=1234)),
        ("decrypt-not-encrypted", "password for a file that is not encrypted", lambda: PdfReader(io.BytesIO(pdf)).decrypt("s3cret")),
        ("bytes-text", "PDF content passed as text", lambda: PdfReader(io.BytesIO("%PDF-1.7 ..."))),
        ("bytes-base64", "PDF content still base64-encoded", lambda: PdfReader(io.BytesIO(base64.b64encode(pdf)))),
    ]  # fmt: skip


def cases(ctx: Context) -> Iterator[Case]:
    from pypdf import PdfReader, PdfWriter

    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str) -> Case:
        return Case(f"pypdf-{slug}", LIBRARY, cause, kind, None, exc, tool)

    for slug, cause, fn in model_calls():
        yield case(slug, cause, F, _catch(fn), "edit_pdf")

    tmp = ctx.tmp
    pdf = _pdf()

    def read(name: str, **kwargs: Any) -> Callable[[], Any]:
        return lambda: len(PdfReader(tmp / name, **kwargs).pages)

    def write_to(target: Any) -> Callable[[], Any]:
        return lambda: PdfWriter(clone_from=io.BytesIO(pdf)).write(target)

    # paths the model gave that are folders
    (tmp / "invoices").mkdir()
    yield case("read-directory", "path to read is a folder", F, _catch(read("invoices")), "read_pdf")
    yield case(
        "write-directory", "path to save is a folder", F, _catch(write_to(tmp / "invoices")), "write_pdf"
    )

    # files on disk
    yield case("file-missing", "PDF file does not exist", A, _catch(read("contract.pdf")), "read_pdf")
    exc = _catch(write_to(tmp / "out" / "merged.pdf"))
    yield case("save-folder-missing", "folder to save into does not exist", A, exc, "write_pdf")
    (tmp / "cut.pdf").write_bytes(pdf[: len(pdf) // 2])
    yield case("file-truncated", "PDF file cut short", A, _catch(read("cut.pdf")), "read_pdf")
    yield case(
        "file-truncated-strict",
        "PDF file cut short (strict)",
        A,
        _catch(read("cut.pdf", strict=True)),
        "read_pdf",
    )
    (tmp / "statement.pdf").write_text("<html><body><h1>Sign in to continue</h1></body></html>")
    yield case("file-html", "downloaded file is an HTML page", A, _catch(read("statement.pdf")), "read_pdf")
    (tmp / "empty.pdf").write_bytes(b"")
    yield case("file-empty", "PDF file is empty", A, _catch(read("empty.pdf")), "read_pdf")
    (tmp / "xref.pdf").write_bytes(re.sub(rb"startxref\n\d+", b"startxref\n999999", pdf))
    exc = _catch(read("xref.pdf", strict=True))
    yield case("file-xref", "cross-reference table points nowhere", A, exc, "read_pdf")
    (tmp / "cycle.pdf").write_bytes(
        _pdf(1).replace(b"/Type /Page\n/Resources", b"/Type /Pages\n/Kids [ 2 0 R ]\n/Resources")
    )
    yield case("file-page-cycle", "page tree that refers to itself", A, _catch(read("cycle.pdf")), "read_pdf")
    (tmp / "dangling.pdf").write_bytes(_pdf().replace(b"/Root 3 0 R", b"/Root 9 0 R"))
    exc = _catch(read("dangling.pdf", strict=True))
    yield case("file-dangling-object", "trailer names an object that is not there", A, exc, "read_pdf")
    (tmp / "malformed.pdf").write_bytes(re.sub(rb"/Kids \[ (\d+) 0 R", rb"/Kids [ \1 0 X", pdf, count=1))
    exc = _catch(read("malformed.pdf", strict=True))
    yield case("file-malformed-object", "malformed object in the page tree", A, exc, "read_pdf")
    form = PdfWriter(clone_from=io.BytesIO(pdf))
    exc = _catch(lambda: form.update_page_form_field_values(form.pages[0], {"name": "Ann"}))
    yield case("no-form", "form fields to fill in a PDF without a form", A, exc, "fill_pdf_form")

    # encryption
    (tmp / "salary.pdf").write_bytes(_encrypted("s3cret"))
    exc = _catch(lambda: PdfReader(tmp / "salary.pdf").pages[0].extract_text())
    yield case("encrypted-no-password", "encrypted file, no password given", U, exc, "read_pdf")
    exc = _catch(lambda: PdfReader(tmp / "salary.pdf").metadata)
    yield case("encrypted-metadata", "metadata of an encrypted file, no password", U, exc, "read_pdf")
    exc = _catch(read("salary.pdf", password="wrong"))
    yield case("encrypted-wrong-password", "wrong password for the file", U, exc, "read_pdf")
    pubsec = _encrypted("s3cret").replace(b"/Filter /Standard", b"/Filter /Adobe.PubSec")
    (tmp / "signed.pdf").write_bytes(pubsec)
    exc = _catch(read("signed.pdf"))
    yield case("encrypted-certificate", "certificate (public-key) encryption", U, exc, "read_pdf")
    # a content stream inflating to 82 MB, past pypdf's 75 MB decompression limit
    (tmp / "bomb.pdf").write_bytes(_with_contents(_deflate_bomb(40_000)))
    exc = _catch(lambda: PdfReader(tmp / "bomb.pdf").pages[0].get_contents().get_data())
    yield case("decompression-limit", "content stream past the decompression limit", U, exc, "read_pdf")

    # the operating system's refusals
    private = tmp / "medical.pdf"
    private.write_bytes(pdf)
    private.chmod(0o000)
    tmp.chmod(0o711)
    yield case("permission-read", "file the tool may not read", U, denied(read("medical.pdf")), "read_pdf")
    locked = read_only_dir(tmp / "shared")
    exc = denied(write_to(locked / "merged.pdf"))
    yield case("permission-folder", "folder the tool may not write into", U, exc, "write_pdf")
    frozen = tmp / "final.pdf"
    frozen.write_bytes(pdf)
    frozen.chmod(0o444)
    yield case(
        "permission-overwrite", "read-only file to overwrite", U, denied(write_to(frozen)), "write_pdf"
    )
    yield case("disk-full", "no space left on the device", U, _catch(write_to("/dev/full")), "write_pdf")
    with file_size_limit(512):
        exc = _catch(write_to(tmp / "big.pdf"))
    yield case("file-size-limit", "file size quota (RLIMIT_FSIZE) reached", U, exc, "write_pdf")
