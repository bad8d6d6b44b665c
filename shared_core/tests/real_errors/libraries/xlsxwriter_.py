# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""XlsxWriter behind an agent's spreadsheet-building tools: each call creates a new ``.xlsx``
file in the tool's workspace (a directory of the module's temporary directory; the model
writes paths relative to it) with a ``Sales`` sheet of the tool's data, applies what the
model asked for and closes the workbook (``Workbook.close()`` is where XlsxWriter writes the
file, and where some of its checks run).

XlsxWriter reports much invalid input only with a ``warnings.warn`` and a return value of
``-1`` (its docs, https://xlsxwriter.readthedocs.io/worksheet.html, e.g. ``merge_range``,
``add_table``, ``data_validation``, ``conditional_format``, ``insert_chart``: "Returns: 0:
Success. -1: ..."): the tools run XlsxWriter with ``warnings.simplefilter("error")`` so that
such a call fails (a ``UserWarning`` raised from XlsxWriter's own ``warn`` call) instead of
writing a file without what the model asked for. The exception classes are those of
``xlsxwriter.exceptions`` (https://xlsxwriter.readthedocs.io/exceptions.html):
``InvalidWorksheetName``, ``DuplicateWorksheetName``, ``OverlappingRange``,
``DuplicateTableName``, ``EmptyChartSeries``, ``UnsupportedImageFormat``,
``UndefinedImageSize``, ``ThemeFileError``, ``FileCreateError``; and ``TypeError`` /
``ValueError`` / ``OSError`` from XlsxWriter's code.

The tools (one JSON schema each, :data:`TOOLS`): ``create_workbook`` ``{"output",
"sheets"}``, ``write_cell`` ``{"output", "sheet", "cell", "value"?, "formula"?}``,
``merge_cells`` ``{"output", "sheet", "ranges", "value"?}``, ``add_tables`` ``{"output",
"sheet", "tables"}``, ``add_data_validation`` / ``add_conditional_format`` ``{"output",
"sheet", "range", "rule"}`` (the rule is XlsxWriter's options dict), ``add_chart``
``{"output", "sheet", "type", "series", "anchor"?}``, ``format_cells`` ``{"output",
"sheet", "range", "format"}``, ``add_hyperlink`` ``{"output", "sheet", "cell", "url"}``,
``insert_image`` ``{"output", "sheet", "cell", "image"}``, ``apply_theme`` ``{"output",
"theme"}``, and ``export_to_xlsx`` ``{"data_path", "output", "split_by"?, "as_table"?}``
which reads a JSON-lines file of the workspace and writes its rows (one sheet per value of
``split_by``; an Excel table when ``as_table``).

Labels follow the cause that was set up:

- fixable: a value the model wrote: a sheet name over 31 characters or with ``/``, the same sheet twice in its list (names are compared without case),
  a merge of a single cell, merges or tables of its call that overlap, a table name with a
  space or two tables of its call with the same name, a data validation type or criteria
  XlsxWriter does not have, a list validation longer than Excel's 255 characters,
  a conditional format type that does not exist, a chart type that does not exist, a
  series without ``values``, a chart without series, a chart anchored past column XFD, a
  colour name that is not a colour, a URL without a known scheme, an A1 reference written
  row first, a cell value that is an object: a corrected call works;
- ambiguous: a file the model only named that XlsxWriter cannot use: an image that does
  not exist, a text or HTML file saved under an image name, a PNG without its size chunk,
  a JPEG without a frame header (XlsxWriter fails with ``struct.error``), a theme file that
  does not exist, is not a theme or is a zip without a theme part; rows of the data file
  that XlsxWriter cannot write (a nested object, a ``NaN`` number), values of ``split_by``
  that are not valid sheet names (too long, ``/``, two values differing only in case) and a
  header row with a repeated name or without rows for the table: the data, not the call,
  is at fault (the model cannot see it), as for other corpus modules' files;
- unrecoverable: a directory or file the process may not write or an image / theme it may
  not read (as an ordinary user), the ``RLIMIT_FSIZE`` file size limit (EFBIG, as a full
  quota; wrapped in ``FileCreateError`` at ``close()``, a bare ``OSError`` in
  ``constant_memory`` mode), and installations without one of XlsxWriter's modules.

Not triggered: XlsxWriter writes local files only (no server, no lock), so nothing is
transient. A cell past row 1048576 or column XFD, and most bad ``write()`` arguments,
return ``-1`` without a warning (no error to record); ``FileSizeError`` needs a 4 GB
file; a temporary directory that cannot be written names a random temporary file in its
message (not stable). An output folder that does not exist is left out (the corpus'
modules do not agree on whether that is the model's path or the workspace's state).
"""

from __future__ import annotations

import importlib
import json
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import A, F, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "XlsxWriter"
REQUIRES = ["XlsxWriter==3.3.1"]


def _s(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


_OUT = _s("Path of the .xlsx file to create in the workspace")
_SHEET = _s("Worksheet name (the workbook starts with a Sales sheet)")


def _tool(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


TOOLS: dict[str, dict[str, Any]] = {
    "create_workbook": _tool(
        {
            "output": _OUT,
            "sheets": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Names of the sheets to add",
            },
        },
        ["output", "sheets"],
    ),
    "write_cell": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "cell": _s("Cell in A1 notation"),
            "value": {"description": "Value to write (text, number, boolean)"},
            "formula": _s("Formula to write instead of a value, e.g. =SUM(B2:B5)"),
        },
        ["output", "sheet", "cell"],
    ),
    "merge_cells": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "ranges": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Ranges to merge, e.g. A1:D1",
            },
            "value": _s("Text of the merged cells"),
        },
        ["output", "sheet", "ranges"],
    ),
    "add_tables": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "tables": {
                "type": "array",
                "items": {"type": "object"},
                "description": 'Tables as {"range": "A1:D5", "name": "Sales"}',
            },
        },
        ["output", "sheet", "tables"],
    ),
    "add_data_validation": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "range": _s("Cells to validate, e.g. E2:E50"),
            "rule": {
                "type": "object",
                "description": "XlsxWriter data_validation options (validate, criteria, value, source ...)",
            },
        },
        ["output", "sheet", "range", "rule"],
    ),
    "add_conditional_format": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "range": _s("Cells to format, e.g. B2:B5"),
            "rule": {
                "type": "object",
                "description": "XlsxWriter conditional_format options (type, criteria, value ...)",
            },
        },
        ["output", "sheet", "range", "rule"],
    ),
    "add_chart": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "type": _s("Chart type: area, bar, column, line, pie, doughnut, scatter, stock, radar"),
            "series": {
                "type": "array",
                "items": {"type": "object"},
                "description": 'Series as {"name", "categories": "=Sales!$A$2:$A$5", "values": "=Sales!$B$2:$B$5"}',
            },
            "anchor": _s("Cell of the chart's top-left corner (default F2)"),
        },
        ["output", "sheet", "type", "series"],
    ),
    "format_cells": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "range": _s("Cells to format, e.g. A1:D1"),
            "format": {
                "type": "object",
                "description": "XlsxWriter format properties (bold, bg_color, num_format ...)",
            },
        },
        ["output", "sheet", "range", "format"],
    ),
    "add_hyperlink": _tool(
        {"output": _OUT, "sheet": _SHEET, "cell": _s("Cell in A1 notation"), "url": _s("Link target")},
        ["output", "sheet", "cell", "url"],
    ),
    "insert_image": _tool(
        {
            "output": _OUT,
            "sheet": _SHEET,
            "cell": _s("Cell in A1 notation"),
            "image": _s("Path of a PNG, JPEG, GIF or BMP image in the workspace"),
        },
        ["output", "sheet", "cell", "image"],
    ),
    "apply_theme": _tool(
        {"output": _OUT, "theme": _s("Path of an Excel theme file (.thmx or theme1.xml) in the workspace")},
        ["output", "theme"],
    ),
    "export_to_xlsx": _tool(
        {
            "data_path": _s("Path of the JSON-lines data file in the workspace"),
            "output": _OUT,
            "split_by": _s("Column whose values become one sheet each"),
            "as_table": {"type": "boolean", "description": "Write the rows as an Excel table"},
        },
        ["data_path", "output"],
    ),
}

ROWS = [
    ["Region", "Revenue", "Units", "Owner"],
    ["north", 120.5, 3, "Kim"],
    ["south", 80.0, 2, "Lee"],
    ["east", 45.25, 1, "Ana"],
    ["west", 99.0, 4, "Raj"],
]


class _Book:
    """A tool call's workbook: created with the ``Sales`` sheet, closed by :meth:`done`."""

    def __init__(self, path: Path, **options: Any) -> None:
        import xlsxwriter

        self.wb = xlsxwriter.Workbook(str(path), {"in_memory": True, **options})
        self.sales = self.wb.add_worksheet("Sales")
        for i, row in enumerate(ROWS):
            self.sales.write_row(i, 0, row)

    def done(self) -> None:
        self.wb.close()


def _strict(fn: Callable[[], Any]) -> BaseException:
    """``fn``'s exception, XlsxWriter's warnings raised as errors (as the tools run it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return _catch(fn)


def _strict_denied(fn: Callable[[], Any]) -> BaseException:
    """``fn``'s exception as an ordinary user, XlsxWriter's warnings raised as errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return _files.denied(fn)


def _model_calls(ws: Path) -> list[tuple[str, str, str, dict[str, Any], Callable[[_Book], Any]]]:
    """(slug, cause, tool, the model's arguments less ``output``, the edit on a fresh book)."""
    sales = {"sheet": "Sales"}
    series = {"categories": "=Sales!$A$2:$A$5", "values": "=Sales!$B$2:$B$5"}

    def chart(b: _Book, kind: str, series_list: list[dict[str, Any]], anchor: str = "F2") -> None:
        c = b.wb.add_chart({"type": kind})
        for s in series_list:
            c.add_series(s)
        b.sales.insert_chart(anchor, c)

    def tables(b: _Book, specs: list[dict[str, str]]) -> None:
        for spec in specs:
            b.sales.add_table(spec["range"], {k: v for k, v in spec.items() if k != "range"})

    long_list = ["Northern Europe and Scandinavia", "Southern Europe and Mediterranean", "Eastern Europe and Balkans",
                 "Western Europe and British Isles", "North America and Canada", "Latin America and Caribbean",
                 "Middle East and North Africa", "Sub-Saharan Africa", "Asia Pacific and Oceania",
                 "Central Asia and the Caucasus", "Greater China and Mongolia"]  # fmt: skip
    return [
        ("sheet-name-too-long", "sheet name over 31 characters", "create_workbook",
         {"sheets": ["Quarterly revenue by region 2024 final"]},
         lambda b: b.wb.add_worksheet("Quarterly revenue by region 2024 final")),
        ("sheet-name-slash", "sheet name with a slash", "create_workbook",
         {"sheets": ["Summary", "Q1/Q2"]}, lambda b: (b.wb.add_worksheet("Summary"), b.wb.add_worksheet("Q1/Q2"))),
        ("sheet-name-twice", "the same sheet twice in the model's list", "create_workbook",
         {"sheets": ["Summary", "Costs", "costs"]},
         lambda b: [b.wb.add_worksheet(n) for n in ("Summary", "Costs", "costs")]),
        ("merge-single-cell", "merge of a single cell", "merge_cells",
         {**sales, "ranges": ["F1:F1"], "value": "Totals"}, lambda b: b.sales.merge_range("F1:F1", "Totals")),
        ("merge-overlap", "merge ranges of the call that overlap", "merge_cells",
         {**sales, "ranges": ["F1:H1", "H1:J2"], "value": "Q1"},
         lambda b: [b.sales.merge_range(r, "Q1") for r in ("F1:H1", "H1:J2")]),
        ("table-overlap", "tables of the call that overlap", "add_tables",
         {**sales, "tables": [{"range": "A1:D5", "name": "Sales"}, {"range": "D3:F8", "name": "Targets"}]},
         lambda b: tables(b, [{"range": "A1:D5", "name": "Sales"}, {"range": "D3:F8", "name": "Targets"}])),
        ("table-name-space", "table name with a space", "add_tables",
         {**sales, "tables": [{"range": "A1:D5", "name": "sales 2024"}]},
         lambda b: tables(b, [{"range": "A1:D5", "name": "sales 2024"}])),
        ("table-name-twice", "two tables of the call with the same name", "add_tables",
         {**sales, "tables": [{"range": "A1:D5", "name": "Totals"}, {"range": "F1:G5", "name": "totals"}]},
         lambda b: (tables(b, [{"range": "A1:D5", "name": "Totals"}, {"range": "F1:G5", "name": "totals"}]), b.done())),
        ("validation-type", "validation type 'dropdown'", "add_data_validation",
         {**sales, "range": "A2:A50", "rule": {"validate": "dropdown", "source": ["north", "south"]}},
         lambda b: b.sales.data_validation("A2:A50", {"validate": "dropdown", "source": ["north", "south"]})),
        ("validation-criteria", "validation criteria 'bigger'", "add_data_validation",
         {**sales, "range": "C2:C50", "rule": {"validate": "integer", "criteria": "bigger", "value": 0}},
         lambda b: b.sales.data_validation("C2:C50", {"validate": "integer", "criteria": "bigger", "value": 0})),
        ("validation-list-too-long", "list validation over 255 characters", "add_data_validation",
         {**sales, "range": "A2:A50", "rule": {"validate": "list", "source": long_list}},
         lambda b: b.sales.data_validation("A2:A50", {"validate": "list", "source": long_list})),
        ("conditional-type", "conditional format type that does not exist", "add_conditional_format",
         {**sales, "range": "B2:B5", "rule": {"type": "heatmap"}},
         lambda b: b.sales.conditional_format("B2:B5", {"type": "heatmap"})),
        ("chart-type", "chart type 'donut'", "add_chart",
         {**sales, "type": "donut", "series": [series]}, lambda b: chart(b, "donut", [series])),
        ("chart-series-no-values", "series without values", "add_chart",
         {**sales, "type": "line", "series": [{"categories": "=Sales!$A$2:$A$5"}]},
         lambda b: chart(b, "line", [{"categories": "=Sales!$A$2:$A$5"}])),
        ("chart-no-series", "chart without a series", "add_chart",
         {**sales, "type": "column", "series": []}, lambda b: (chart(b, "column", []), b.done())),
        ("chart-anchor-past-xfd", "chart anchored past the last column", "add_chart",
         {**sales, "type": "bar", "series": [series], "anchor": "XFE1"},
         lambda b: chart(b, "bar", [series], "XFE1")),
        ("format-colour-name", "colour name that is not a colour", "format_cells",
         {**sales, "range": "A1:D1", "format": {"bold": True, "bg_color": "light blue"}},
         lambda b: b.wb.add_format({"bold": True, "bg_color": "light blue"})),
        ("hyperlink-scheme", "URL without a known scheme", "add_hyperlink",
         {**sales, "cell": "E2", "url": "htp:/intranet/sales"},
         lambda b: b.sales.write_url("E2", "htp:/intranet/sales")),
        ("cell-row-first", "cell reference written row first", "write_cell",
         {**sales, "cell": "6A", "value": "total"}, lambda b: b.sales.write("6A", "total")),
        ("cell-value-object", "cell value that is an object", "write_cell",
         {**sales, "cell": "E2", "value": {"amount": 5, "currency": "EUR"}},
         lambda b: b.sales.write("E2", {"amount": 5, "currency": "EUR"})),
    ]  # fmt: skip


def cases(ctx: Context) -> Iterator[Case]:
    ws = ctx.tmp / "workspace"
    (ws / "reports").mkdir(parents=True)
    n = 0

    def out() -> str:
        nonlocal n
        n += 1
        return f"reports/book-{n}.xlsx"

    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str, args: dict[str, Any]) -> Case:
        return Case(f"xlsxwriter-{slug}", LIBRARY, cause, kind, None, exc, tool, args, TOOLS[tool])

    for slug, cause, tool, args, edit in _model_calls(ws):
        rel = out()
        exc = _strict(lambda: edit(_Book(ws / rel)))
        yield case(slug, cause, F, exc, tool, {"output": rel, **args})
    yield from _files_named(ws, out, case)
    yield from _refusals(ctx, ws, case)


def _png_without_size() -> bytes:
    text = b"\x00\x00\x00\x07tEXtlogo\x00v1"
    return (
        b"\x89PNG\r\n\x1a\n" + text + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00IEND\xaeB`\x82" + b"\x00" * 20
    )


def _export(
    ws: Path, data_path: str, output: str, split_by: str | None = None, as_table: bool = False
) -> None:
    """``export_to_xlsx``: the JSON-lines rows, one sheet per ``split_by`` value."""
    import xlsxwriter

    rows = [json.loads(line) for line in (ws / data_path).read_text().splitlines() if line.strip()]
    header = list(rows[0]) if rows else []
    if rows and "columns" in rows[0]:  # a file that declares its header
        header, rows = rows[0]["columns"], rows[1:]
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row[split_by]) if split_by else "Data", []).append(row)
    wb = xlsxwriter.Workbook(str(ws / output), {"in_memory": True})
    for name, group in groups.items() or [("Data", [])]:
        sheet = wb.add_worksheet(name)
        data = [[r.get(h) for h in header] for r in group]
        if as_table:
            sheet.add_table(0, 0, len(data), max(len(header) - 1, 0), {"data": data, "columns": [{"header": h} for h in header]})  # fmt: skip
        else:
            sheet.write_row(0, 0, header)
            for i, values in enumerate(data, start=1):
                sheet.write_row(i, 0, values)
    wb.close()


def _files_named(ws: Path, out: Callable[[], str], case: Callable[..., Case]) -> Iterator[Case]:
    """Files the model only named: images, themes and data files XlsxWriter cannot use."""
    assets = ws / "assets"
    assets.mkdir()
    (assets / "logo.png").write_text("logo: see the brand portal\n")
    (assets / "banner.jpg").write_text(
        "<html><head><title>Sign in</title></head><body>Your session has expired.</body></html>\n"
    )
    (assets / "badge.png").write_bytes(_png_without_size())
    (assets / "photo.jpg").write_bytes(
        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9" + b"\x00" * 40
    )
    images = [
        ("image-missing", "image file that does not exist", "assets/logo_2024.png"),
        ("image-is-text", "text file saved under a .png name", "assets/logo.png"),
        ("image-is-html", "HTML page saved under a .jpg name", "assets/banner.jpg"),
        ("image-png-no-size", "PNG without its size chunk", "assets/badge.png"),
        ("image-jpeg-no-frame", "JPEG without a frame header", "assets/photo.jpg"),
    ]
    for slug, cause, image in images:
        rel = out()
        exc = _strict(lambda: _Book(ws / rel).sales.insert_image("F2", str(ws / image)))
        yield case(
            slug,
            cause,
            A,
            exc,
            "insert_image",
            {"output": rel, "sheet": "Sales", "cell": "F2", "image": image},
        )

    (assets / "brand.xml").write_text("<theme><colour>#0055AA</colour></theme>\n")
    with zipfile.ZipFile(assets / "brand.thmx", "w") as z:
        z.writestr("docProps/app.xml", "<Properties/>")
    themes = [
        ("theme-missing", "theme file that does not exist", "assets/corporate.thmx"),
        ("theme-not-theme", "XML file that is not an Office theme", "assets/brand.xml"),
        ("theme-zip-without-theme", "theme archive without its theme part", "assets/brand.thmx"),
    ]
    for slug, cause, theme in themes:
        rel = out()
        exc = _strict(lambda: _Book(ws / rel).wb.use_custom_theme(str(ws / theme)))
        yield case(slug, cause, A, exc, "apply_theme", {"output": rel, "theme": theme})

    data = ws / "data"
    data.mkdir()
    files: list[tuple[str, str, str, str, dict[str, Any]]] = [
        ("data-nested-object", "row value that is a nested object", "orders.jsonl",
         '{"id": 1, "region": "north", "amount": 20.5}\n{"id": 2, "region": "south", "amount": {"value": 12, "currency": "EUR"}}\n', {}),
        ("data-nan", "NaN number in the data file", "metrics.jsonl",
         '{"day": "2024-03-01", "ratio": 0.25}\n{"day": "2024-03-02", "ratio": NaN}\n', {}),
        ("data-split-value-too-long", "value to split by is too long for a sheet name", "customers.jsonl",
         '{"name": "Ada", "segment": "Enterprise accounts in the public sector"}\n', {"split_by": "segment"}),
        ("data-split-value-slash", "value to split by holds a slash", "sales.jsonl",
         '{"region": "north", "amount": 3}\n{"region": "north/east", "amount": 4}\n', {"split_by": "region"}),
        ("data-split-values-case", "values to split by differing only in case", "tickets.jsonl",
         '{"team": "Support", "open": 3}\n{"team": "support", "open": 4}\n', {"split_by": "team"}),
        ("data-header-repeated", "header with a repeated column name", "export.jsonl",
         '{"columns": ["Region", "Amount", "region"]}\n{"Region": "north", "Amount": 3}\n', {"as_table": True}),
        ("data-no-rows", "data file with a header and no rows", "empty.jsonl",
         '{"columns": ["Region", "Amount"]}\n', {"as_table": True}),
    ]  # fmt: skip
    for slug, cause, name, text, extra in files:
        (data / name).write_text(text)
        rel = out()
        exc = _strict(lambda: _export(ws, f"data/{name}", rel, **extra))
        yield case(
            slug, cause, A, exc, "export_to_xlsx", {"data_path": f"data/{name}", "output": rel, **extra}
        )


def _refusals(ctx: Context, ws: Path, case: Callable[..., Case]) -> Iterator[Case]:
    """The operating system's refusals and broken installations (unrecoverable)."""
    _files.read_only_dir(ctx.tmp / "ro-probe")  # makes ctx.tmp searchable by nobody
    ws.chmod(0o777)
    (ws / "reports").chmod(0o777)
    shared = _files.read_only_dir(ws / "shared")
    sheet = {"output": "shared/q1.xlsx", "sheets": ["Summary"]}
    exc = _strict_denied(lambda: (b := _Book(shared / "q1.xlsx"), b.wb.add_worksheet("Summary"), b.done()))  # fmt: skip
    yield case("dir-read-only", "directory not writable (permissions)", U, exc, "create_workbook", sheet)
    locked = ws / "reports" / "board.xlsx"
    locked.write_bytes(b"")
    locked.chmod(0o444)
    exc = _strict_denied(lambda: (b := _Book(locked), b.wb.add_worksheet("Summary"), b.done()))
    yield case("file-read-only", "file not writable (permissions)", U, exc, "create_workbook",
               {"output": "reports/board.xlsx", "sheets": ["Summary"]})  # fmt: skip
    private = ws / "assets" / "signature.png"
    private.write_bytes(_png_without_size())
    private.chmod(0o000)
    (ws / "assets").chmod(0o777)
    exc = _strict_denied(lambda: _Book(ws / "reports/signed.xlsx").sales.insert_image("F2", str(private)))  # fmt: skip
    yield case("image-unreadable", "image not readable (permissions)", U, exc, "insert_image",
               {"output": "reports/signed.xlsx", "sheet": "Sales", "cell": "F2", "image": "assets/signature.png"})  # fmt: skip
    theme = ws / "assets" / "private.xml"
    theme.write_text('<?xml version="1.0"?><a:theme xmlns:a="x"></a:theme>')
    theme.chmod(0o000)
    exc = _strict_denied(lambda: _Book(ws / "reports/themed.xlsx").wb.use_custom_theme(str(theme)))
    yield case("theme-unreadable", "theme file not readable (permissions)", U, exc, "apply_theme",
               {"output": "reports/themed.xlsx", "theme": "assets/private.xml"})  # fmt: skip

    # the file size limit (a full quota), at close() and in constant_memory mode's row files
    lines = "".join(
        json.dumps({"order": f"order {i:08d}", "amount": i * 1.5, "note": f"note {i * 7919 % 100003}"}) + "\n"
        for i in range(3000)
    )
    (ws / "data" / "orders_2024.jsonl").write_text(lines)
    with _files.file_size_limit(8192):
        exc = _strict(lambda: _export(ws, "data/orders_2024.jsonl", "reports/orders.xlsx"))
    yield case("file-size-limit", "file size limit reached (quota)", U, exc, "export_to_xlsx",
               {"data_path": "data/orders_2024.jsonl", "output": "reports/orders.xlsx"})  # fmt: skip

    def streamed() -> None:
        import xlsxwriter

        wb = xlsxwriter.Workbook(str(ws / "reports/stream.xlsx"), {"constant_memory": True, "tmpdir": str(ws / "reports")})  # fmt: skip
        sheet = wb.add_worksheet("Orders")
        rows = [json.loads(line) for line in lines.splitlines()]
        with _files.file_size_limit(8192):
            for i, row in enumerate(rows):
                sheet.write_row(i, 0, list(row.values()))
            wb.close()

    exc = _strict(streamed)
    yield case("file-size-limit-streamed", "file size limit reached (quota)", U, exc, "export_to_xlsx",
               {"data_path": "data/orders_2024.jsonl", "output": "reports/stream.xlsx"})  # fmt: skip

    # installations without one of XlsxWriter's modules
    for mod in ("chart_doughnut", "packager", "worksheet", "utility"):
        with _pkgcopy.broken_install(ctx.tmp, ["xlsxwriter"], drop=(f"xlsxwriter/{mod}.py",)):
            exc = _catch(lambda: importlib.import_module("xlsxwriter"))
        yield case(f"module-missing-{mod.replace('_', '-')}", f"installed module file missing (xlsxwriter/{mod}.py)",
                   U, exc, "create_workbook", {"output": "reports/summary.xlsx", "sheets": ["Summary"]})  # fmt: skip
