"""openpyxl: Excel workbooks a tool reads and writes, written for real into the module's
temporary directory. Sheet names, cell references, ranges, values, styles and table or
validation settings the model wrote in its arguments; workbook files on disk that are
corrupt or not xlsx (truncated, an HTML page, a legacy ``.xls``, a CSV, a zip of something
else, a missing part, a broken sheet XML, a bad CRC); a workbook opened read-only; and the
operating system's refusals while saving or loading (a file or directory an ordinary user
may not read or write, a full device ``/dev/full``, the ``RLIMIT_FSIZE`` file size quota).

Labels follow the corpus' conventions (``libraries/pillow_.py``, ``csv_.py``, ``duckdb_.py``,
``pandas_.py``): a value the model wrote in the call (a sheet or defined name it named that
does not exist, a coordinate, a colour, a row that is not a list, an output path that is a
directory) is fixable; the reader failing on a file the tool read is ambiguous, and so is a
path that does not exist (to read, or a folder to save into, as ``csv_.py`` and
``duckdb_.py``); permission denied, a full device, the file size quota and a workbook opened
read-only (as ``duckdb_.py``'s read-only database) are unrecoverable. A workbook on a local
disk has no transient failure (no server, no lock openpyxl waits on), so none is produced.

Messages listing a set of allowed values (``Value must be one of {...}``) follow the hash seed;
the corpus is generated and checked with ``PYTHONHASHSEED=0``."""

from __future__ import annotations

import datetime
import io
import zipfile
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from ._files import denied, file_size_limit, read_only_dir

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "openpyxl"
REQUIRES = ["openpyxl>=3.1.5,<3.2"]


def _book() -> Any:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["region", "revenue", "date"])
    for i, region in enumerate(["north", "south", "east", "west"]):
        ws.append([region, 100 + i * 25, datetime.date(2024, 1, 1 + i)])
    ws.merge_cells("E1:F1")
    wb.create_sheet("Costs").append(["item", "amount"])
    return wb


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, cause, the model's arguments, call): an argument the model wrote, rejected by
    openpyxl. The cell and sheet operations act on the sheet ``Sales`` the model named."""
    from openpyxl.formatting.rule import CellIsRule, ColorScaleRule
    from openpyxl.styles import Alignment, Font, PatternFill, Side
    from openpyxl.utils import column_index_from_string, range_boundaries
    from openpyxl.worksheet.datavalidation import DataValidation
    from openpyxl.worksheet.table import Table

    wb = _book()
    ws = wb["Sales"]
    sales = {"sheet": "Sales"}

    def set_value(coord: str, value: Any) -> None:
        ws[coord] = value

    return [
        # sheets and names the model named
        ("sheet-missing", "sheet name that does not exist", {"sheet": "Revenue"}, lambda: wb["Revenue"]),
        ("sheet-case", "sheet name in the wrong case", {"sheet": "sales"}, lambda: wb["sales"]),
        ("sheet-move-missing", "move of a sheet that does not exist", {"sheet": "Q3", "move_by": 1}, lambda: wb.move_sheet("Q3", 1)),
        ("sheet-index", "sheet index past the last sheet", {"sheet_index": 5}, lambda: wb.worksheets[5]),
        ("defined-name-missing", "defined name that does not exist", {"defined_name": "Totals"}, lambda: wb.defined_names["Totals"]),
        ("title-slash", "sheet title with a slash", {"new_sheet": "Q1/Q2"}, lambda: wb.create_sheet("Q1/Q2")),
        ("title-bracket", "sheet title with brackets", {"new_sheet": "[draft]"}, lambda: wb.create_sheet("[draft]")),
        ("title-empty", "empty sheet title", {"sheet": "Costs", "rename_to": ""}, lambda: setattr(wb["Costs"], "title", "")),
        ("create-index-str", "sheet position as a string", {"new_sheet": "Notes", "index": "2"}, lambda: wb.create_sheet("Notes", index="2")),
        # cell references and ranges
        ("coord-row-zero", "cell reference with row 0", {**sales, "cell": "A0"}, lambda: ws["A0"]),
        ("coord-reversed", "cell reference written row first", {**sales, "cell": "1A"}, lambda: ws["1A"]),
        ("coord-column-too-wide", "column beyond XFD", {**sales, "cell": "ZZZZ1"}, lambda: ws["ZZZZ1"]),
        ("coord-sheet-prefix", "range with a sheet prefix", {"range": "Sales!A1:B2"}, lambda: range_boundaries("Sales!A1:B2")),
        ("cell-row-beyond-max", "row beyond 1048576", {**sales, "row": 2_000_000, "column": 1}, lambda: ws.cell(row=2_000_000, column=1)),
        ("cell-column-letter", "column given as a letter to cell()", {**sales, "row": 1, "column": "B"}, lambda: ws.cell(row=1, column="B")),
        ("column-name-digits", "column name that is a number", {"column": "12"}, lambda: column_index_from_string("12")),
        ("merge-dash-range", "merge range written with a dash", {**sales, "merge": "A1-B2"}, lambda: ws.merge_cells("A1-B2")),
        ("unmerge-not-merged", "unmerge of cells that are not merged", {**sales, "unmerge": "C1:D2"}, lambda: ws.unmerge_cells("C1:D2")),
        ("print-title-rows", "print title rows without a range", {**sales, "print_title_rows": "1"}, lambda: setattr(ws, "print_title_rows", "1")),
        ("freeze-column-only", "freeze panes at a bare column", {**sales, "freeze_panes": "A"}, lambda: setattr(ws, "freeze_panes", "A")),
        # values
        ("value-list", "cell value that is a list", {**sales, "cell": "B2", "value": [1, 2]}, lambda: set_value("B2", [1, 2])),
        ("value-dict", "cell value that is an object", {**sales, "cell": "B2", "value": {"amount": 5}}, lambda: set_value("B2", {"amount": 5})),
        ("value-control-char", "cell text with a control character", {**sales, "cell": "A7", "value": "bell\x07"}, lambda: set_value("A7", "bell\x07")),
        ("append-string", "row that is a string, not a list", {**sales, "append_row": 5}, lambda: ws.append(5)),
        # JSON has no set: the model's array, which the tool turned into a set
        ("append-set", "row that is a set", {**sales, "append_row": ["north", 3]}, lambda: ws.append({"north", 3})),
        ("append-dict-header", "row keyed by header names, not columns", {**sales, "append_row": {"revenue": 1}}, lambda: ws.append({"revenue": 1})),
        ("insert-rows-str", "row count as a string", {**sales, "insert_rows_at": "3"}, lambda: ws.insert_rows("3")),
        ("insert-cols-negative", "negative column position", {**sales, "insert_cols_at": -3}, lambda: ws.insert_cols(-3)),
        ("iter-rows-negative", "negative first row to read", {**sales, "min_row": -1}, lambda: list(ws.iter_rows(min_row=-1))),
        ("move-range-str", "row offset as a string", {**sales, "range": "A1:B2", "rows": "2"}, lambda: ws.move_range("A1:B2", rows="2")),
        # styles and settings
        ("font-colour-name", "colour name instead of aRGB hex", {"font_color": "red"}, lambda: Font(color="red")),
        ("fill-colour-hash", "colour written #RRGGBB", {"fill_type": "solid", "fill_color": "#FF0000"}, lambda: PatternFill("solid", fgColor="#FF0000")),
        ("font-size-word", "font size as a word", {"font_size": "big"}, lambda: Font(size="big")),
        ("fill-type", "fill pattern that does not exist", {"fill_type": "striped"}, lambda: PatternFill(fill_type="striped")),
        ("align-middle", "horizontal alignment 'middle'", {"horizontal_alignment": "middle"}, lambda: Alignment(horizontal="middle")),
        ("border-style", "border style that does not exist", {"border_style": "thick-dashed"}, lambda: Side(style="thick-dashed")),
        ("width-word", "column width as a word", {**sales, "column": "A", "width": "wide"}, lambda: setattr(ws.column_dimensions["A"], "width", "wide")),
        ("orientation", "page orientation that does not exist", {**sales, "orientation": "sideways"}, lambda: setattr(ws.page_setup, "orientation", "sideways")),
        ("validation-type", "data validation type 'dropdown'", {"validation_type": "dropdown"}, lambda: DataValidation(type="dropdown")),
        ("conditional-operator", "conditional rule operator 'bigger'", {"operator": "bigger", "formula": ["5"]}, lambda: CellIsRule(operator="bigger", formula=["5"])),
        ("colour-scale-type", "colour scale point type 'minimum'", {"start_type": "minimum", "start_color": "FFFF0000"}, lambda: ColorScaleRule(start_type="minimum", start_color="FFFF0000")),
        ("table-name-space", "table name with a space", {**sales, "table_name": "my table", "ref": "A1:C5"}, lambda: ws.add_table(Table(displayName="my table", ref="A1:C5"))),
        ("table-ref-dash", "table range written with a dash", {"table_name": "T1", "ref": "A1-C5"}, lambda: Table(displayName="T1", ref="A1-C5")),
    ]  # fmt: skip


def _xlsx_bytes() -> bytes:
    out = io.BytesIO()
    _book().save(out)
    return out.getvalue()


def _rezip(
    data: bytes, edit: Callable[[str, bytes], bytes | None], method: int = zipfile.ZIP_DEFLATED
) -> bytes:
    """The workbook's zip with each member passed through ``edit`` (``None`` drops it)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", method) as dst:
        for info in src.infolist():
            body = edit(info.filename, src.read(info.filename))
            if body is not None:
                dst.writestr(info.filename, body)
    return out.getvalue()


def cases(ctx: Context) -> Iterator[Case]:
    import openpyxl

    tmp = ctx.tmp

    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str, args: dict[str, Any]) -> Case:
        return Case(f"openpyxl-{slug}", LIBRARY, cause, kind, None, exc, tool, arguments=args)

    def at(*parts: str) -> dict[str, Any]:
        """The arguments of a call naming a file: its path."""
        return {"path": str(tmp.joinpath(*parts))}

    for slug, cause, args, fn in model_calls():
        yield case(slug, cause, F, _catch(fn), "edit_spreadsheet", args)

    good = _xlsx_bytes()

    def load(name: str) -> Callable[[], Any]:
        return lambda: openpyxl.load_workbook(tmp / name)

    # paths the model gave that are folders
    (tmp / "reports").mkdir()
    yield case(
        "load-directory",
        "path to read is a folder",
        F,
        _catch(load("reports")),
        "read_spreadsheet",
        at("reports"),
    )
    exc = _catch(lambda: _book().save(tmp / "reports"))
    yield case("save-directory", "path to save is a folder", F, exc, "write_spreadsheet", at("reports"))

    # files on disk
    yield case(
        "file-missing",
        "workbook file does not exist",
        A,
        _catch(load("q3.xlsx")),
        "read_spreadsheet",
        at("q3.xlsx"),
    )
    exc = _catch(lambda: _book().save(tmp / "archive" / "2024" / "q3.xlsx"))
    yield case(
        "save-folder-missing",
        "folder to save into does not exist",
        A,
        exc,
        "write_spreadsheet",
        at("archive", "2024", "q3.xlsx"),
    )
    (tmp / "cut.xlsx").write_bytes(good[: len(good) // 2])
    yield case(
        "file-truncated",
        "workbook file cut short",
        A,
        _catch(load("cut.xlsx")),
        "read_spreadsheet",
        at("cut.xlsx"),
    )
    (tmp / "export.xlsx").write_text("<html><body><h1>Session expired</h1></body></html>")
    exc = _catch(load("export.xlsx"))
    yield case("file-html", "downloaded file is an HTML page", A, exc, "read_spreadsheet", at("export.xlsx"))
    (tmp / "legacy.xls").write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + b"\x00" * 504)
    exc = _catch(load("legacy.xls"))
    yield case("file-legacy-xls", "file in the old .xls format", A, exc, "read_spreadsheet", at("legacy.xls"))
    (tmp / "orders.csv").write_text("id,amount\n1,20\n")
    exc = _catch(load("orders.csv"))
    yield case("file-csv", "file is a CSV, not a workbook", A, exc, "read_spreadsheet", at("orders.csv"))
    with zipfile.ZipFile(tmp / "bundle.xlsx", "w") as z:
        z.writestr("orders.csv", "id,amount\n1,20\n")
    exc = _catch(load("bundle.xlsx"))
    yield case(
        "file-other-zip", "zip archive that is not a workbook", A, exc, "read_spreadsheet", at("bundle.xlsx")
    )
    (tmp / "nosheet.xlsx").write_bytes(_rezip(good, lambda n, b: None if n == "xl/workbook.xml" else b))
    exc = _catch(load("nosheet.xlsx"))
    yield case(
        "file-part-missing",
        "workbook missing its workbook part",
        A,
        exc,
        "read_spreadsheet",
        at("nosheet.xlsx"),
    )
    (tmp / "badxml.xlsx").write_bytes(
        _rezip(good, lambda n, b: b[: len(b) // 2] if n.endswith("sheet1.xml") else b)
    )
    exc = _catch(load("badxml.xlsx"))
    yield case(
        "file-sheet-xml",
        "sheet XML inside the workbook cut short",
        A,
        exc,
        "read_spreadsheet",
        at("badxml.xlsx"),
    )
    # members stored uncompressed, so that the damaged byte is in the data itself (what
    # inflating damaged compressed data reports depends on the zlib build)
    crc = bytearray(_rezip(good, lambda n, b: b, zipfile.ZIP_STORED))
    with zipfile.ZipFile(io.BytesIO(bytes(crc))) as z:
        info = z.getinfo("xl/workbook.xml")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    crc[start + info.compress_size // 2] ^= 0xFF
    (tmp / "crc.xlsx").write_bytes(bytes(crc))
    exc = _catch(load("crc.xlsx"))
    yield case(
        "file-corrupt-data",
        "workbook with damaged compressed data",
        A,
        exc,
        "read_spreadsheet",
        at("crc.xlsx"),
    )

    # a workbook opened read-only
    (tmp / "ledger.xlsx").write_bytes(good)
    ro = openpyxl.load_workbook(tmp / "ledger.xlsx", read_only=True)
    exc = _catch(lambda: setattr(ro["Sales"]["B2"], "value", 10))
    yield case(
        "read-only-cell",
        "cell write in a workbook opened read-only",
        U,
        exc,
        "edit_spreadsheet",
        {**at("ledger.xlsx"), "sheet": "Sales", "cell": "B2", "value": 10},
    )
    exc = _catch(lambda: ro.create_sheet("Notes"))
    yield case(
        "read-only-sheet",
        "new sheet in a workbook opened read-only",
        U,
        exc,
        "edit_spreadsheet",
        {**at("ledger.xlsx"), "new_sheet": "Notes"},
    )
    exc = _catch(lambda: ro.save(tmp / "ledger-copy.xlsx"))
    yield case(
        "read-only-save",
        "save of a workbook opened read-only",
        U,
        exc,
        "write_spreadsheet",
        at("ledger-copy.xlsx"),
    )
    ro.close()

    # the operating system's refusals
    private = tmp / "payroll.xlsx"
    private.write_bytes(good)
    private.chmod(0o000)
    tmp.chmod(0o711)
    exc = denied(load("payroll.xlsx"))
    yield case(
        "permission-read", "file the tool may not read", U, exc, "read_spreadsheet", at("payroll.xlsx")
    )
    locked = read_only_dir(tmp / "shared")
    exc = denied(lambda: _book().save(locked / "summary.xlsx"))
    yield case(
        "permission-folder",
        "folder the tool may not write into",
        U,
        exc,
        "write_spreadsheet",
        {"path": str(locked / "summary.xlsx")},
    )
    frozen = tmp / "budget.xlsx"
    frozen.write_bytes(good)
    frozen.chmod(0o444)
    exc = denied(lambda: _book().save(frozen))
    yield case(
        "permission-overwrite", "read-only file to overwrite", U, exc, "write_spreadsheet", at("budget.xlsx")
    )
    exc = _catch(lambda: _book().save("/dev/full"))
    yield case("disk-full", "no space left on the device", U, exc, "write_spreadsheet", {"path": "/dev/full"})
    with file_size_limit(2048):
        exc = _catch(lambda: _book().save(tmp / "big.xlsx"))
    yield case(
        "file-size-limit",
        "file size quota (RLIMIT_FSIZE) reached",
        U,
        exc,
        "write_spreadsheet",
        at("big.xlsx"),
    )
