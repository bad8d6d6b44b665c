# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Shapely behind a GIS tool: geometries the model wrote (WKT, GeoJSON, coordinates) and the
options it chose (buffer styles, tolerances, predicates, ratios) are fixable; the same
parsers and operations failing on a parcels file on disk (WKT lines, a GeoJSON feature
collection, a WKB blob) or on a boundary service's GeoJSON answer on 127.0.0.1 are about
data the model never wrote: ambiguous; an installation without GEOS' vendored libraries or
without shapely's compiled module is unrecoverable.

Labels follow the cause. ``shapely.from_wkt`` / ``wkt.loads`` raise ``GEOSException``
(``ParseException: Unknown type``, ``Expected number but encountered ','``,
``IllegalArgumentException: Points of LinearRing do not form a closed linestring``) for
text that is not well-formed WKT (https://shapely.readthedocs.io/en/stable/reference/shapely.from_wkt.html;
the WKT grammar of OGC 06-103r4); ``shapely.geometry.shape`` raises ``GeometryTypeError``,
``KeyError`` / ``TypeError`` / ``ValueError`` for a GeoJSON-like mapping without a known
``type`` or with coordinates of the wrong nesting (https://shapely.readthedocs.io/en/stable/manual.html#python-geo-interface,
RFC 7946 section 3.1); the constructors reject too few coordinates ("A linearring requires
at least 4 coordinates"); the option validators raise ``ValueError`` ("'origin' keyword 'middle' is not
recognized", "Unknown method") and GEOS ``IllegalArgumentException`` for a negative tolerance, a densify
fraction out of range or an intersection-matrix pattern not 9 long
(https://shapely.readthedocs.io/en/stable/reference/shapely.buffer.html,
.../shapely.simplify.html, .../shapely.hausdorff_distance.html, .../shapely.relate_pattern.html,
.../shapely.concave_hull.html). A self-intersecting polygon makes overlay operations raise
``TopologyException: side location conflict ... the input geometry is invalid``
(https://shapely.readthedocs.io/en/stable/manual.html#object.is_valid): the model's own
bow-tie is fixable, a parcel on disk or a boundary from the service is ambiguous.

Unrecoverable: ``import shapely`` where the wheel's ``shapely.libs`` (libgeos_c) is not
beside the package, or where ``shapely/lib*.so`` is missing (:mod:`libraries._pkgcopy`:
the real package imported from a copy of the installation without those files); these run
before shapely is first imported by this process, so that the dynamic loader really looks
for the library.

Left out: an option name Shapely checks against a set (``cap_style``, ``join_style``,
``on_invalid``, an STRtree ``predicate``) names the valid choices in set order, which
changes from run to run (string hashing), so those texts cannot be stored stably.

Not triggerable: Shapely does no I/O of its own (no files opened, no network: no transient,
no permission or disk case; the tool's own ``open()`` is not Shapely's code); no memory or
recursion limit was reachable through the arguments a tool passes.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "shapely"
REQUIRES = ["shapely>=2.2,<2.3"]  # its GEOS messages and vendored library names

BOWTIE = "POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))"
SQUARE = "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))"
LINE = "LINESTRING (0 0, 3 4)"


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call) of each bad argument."""
    import shapely
    from shapely import affinity, ops, wkb, wkt
    from shapely.geometry import LinearRing, LineString, MultiPolygon, Point, Polygon, shape

    square, line = wkt.loads(SQUARE), wkt.loads(LINE)
    r = shapely.from_wkt
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        # WKT the model wrote
        ("wkt-ring-not-closed", "area_of", {"wkt": "POLYGON ((0 0, 1 1, 1 0))"}, lambda: wkt.loads("POLYGON ((0 0, 1 1, 1 0))")),
        ("wkt-unknown-type", "area_of", {"wkt": "POLYGN ((0 0, 1 1, 1 0, 0 0))"}, lambda: wkt.loads("POLYGN ((0 0, 1 1, 1 0, 0 0))")),
        ("wkt-empty", "area_of", {"wkt": ""}, lambda: wkt.loads("")),
        ("wkt-point-comma", "distance_between", {"a": "POINT (1, 2)", "b": "POINT (3 4)"}, lambda: r("POINT (1, 2)")),
        ("wkt-line-one-point", "length_of", {"wkt": "LINESTRING (0 0)"}, lambda: wkt.loads("LINESTRING (0 0)")),
        ("wkt-unbalanced", "area_of", {"wkt": "POLYGON ((0 0, 4 0, 4 4, 0 0)"}, lambda: wkt.loads("POLYGON ((0 0, 4 0, 4 4, 0 0)")),
        ("wkt-is-geojson", "area_of", {"wkt": '{"type": "Point", "coordinates": [1, 2]}'}, lambda: wkt.loads('{"type": "Point", "coordinates": [1, 2]}')),
        ("wkt-number", "area_of", {"wkt": 5}, lambda: wkt.loads(5)),
        ("wkt-latlon-words", "distance_between", {"a": "POINT (lat 52.5 lon 13.4)", "b": "POINT (0 0)"}, lambda: r("POINT (lat 52.5 lon 13.4)")),
        ("wkb-hex-not-hex", "area_of", {"wkb_hex": "zz"}, lambda: wkb.loads("zz", hex=True)),
        ("wkb-hex-truncated", "area_of", {"wkb_hex": "0101000000000000000000F03F"}, lambda: wkb.loads("0101000000000000000000F03F", hex=True)),
        # GeoJSON the model wrote
        ("geojson-type-circle", "area_of", {"geojson": {"type": "Circle", "coordinates": [0, 0]}}, lambda: shape({"type": "Circle", "coordinates": [0, 0]})),
        ("geojson-no-coordinates", "area_of", {"geojson": {"type": "Polygon"}}, lambda: shape({"type": "Polygon"})),
        ("geojson-ring-not-nested", "area_of", {"geojson": {"type": "Polygon", "coordinates": [[0, 0], [1, 1], [1, 0], [0, 0]]}}, lambda: shape({"type": "Polygon", "coordinates": [[0, 0], [1, 1], [1, 0], [0, 0]]})),
        ("geojson-line-one-point", "length_of", {"geojson": {"type": "LineString", "coordinates": [[0, 0]]}}, lambda: shape({"type": "LineString", "coordinates": [[0, 0]]})),
        ("geojson-point-strings", "distance_between", {"a": {"type": "Point", "coordinates": ["13.4E", "52.5N"]}}, lambda: shape({"type": "Point", "coordinates": ["13.4E", "52.5N"]})),
        ("geojson-point-4d", "distance_between", {"a": {"type": "Point", "coordinates": [1, 2, 3, 4]}}, lambda: shape({"type": "Point", "coordinates": [1, 2, 3, 4]})),
        ("geojson-null", "area_of", {"geojson": None}, lambda: shape(None)),
        ("geojson-list", "area_of", {"geojson": [13.4, 52.5]}, lambda: shape([13.4, 52.5])),
        ("geojson-text-truncated", "area_of", {"geojson_text": '{"type": "Poly'}, lambda: shapely.from_geojson('{"type": "Poly')),
        ("geojson-text-coords-flat", "area_of", {"geojson_text": '{"type": "Polygon", "coordinates": [0, 0, 1, 1]}'}, lambda: shapely.from_geojson('{"type": "Polygon", "coordinates": [0, 0, 1, 1]}')),
        ("geojson-text-type-unknown", "area_of", {"geojson_text": '{"type": "Rectangle", "coordinates": [0, 0, 1, 1]}'}, lambda: shapely.from_geojson('{"type": "Rectangle", "coordinates": [0, 0, 1, 1]}')),
        # coordinates the model gave to constructors
        ("polygon-two-points", "area_of", {"coordinates": [[0, 0], [1, 1]]}, lambda: Polygon([(0, 0), (1, 1)])),
        ("ring-two-points", "area_of", {"ring": [[0, 0], [1, 1]]}, lambda: LinearRing([(0, 0), (1, 1)])),
        ("line-one-point", "length_of", {"coordinates": [[0, 0]]}, lambda: LineString([(0, 0)])),
        ("point-four-values", "distance_between", {"a": [1, 2, 3, 4]}, lambda: Point(1, 2, 3, 4)),
        ("point-words", "distance_between", {"a": ["east", "north"]}, lambda: Point("east", "north")),
        ("point-empty", "distance_between", {"a": []}, lambda: Point([])),
        ("ring-mixed-dimensions", "area_of", {"coordinates": [[0, 0], [1, 0], [1, 1], [0, 0, 5]]}, lambda: Polygon([(0, 0), (1, 0), (1, 1), (0, 0, 5)])),
        ("multipolygon-of-points", "area_of", {"parts": ["POINT (0 0)"]}, lambda: MultiPolygon([wkt.loads("POINT (0 0)")])),
        ("box-string-bound", "clip_to_box", {"wkt": SQUARE, "bbox": ["0", 0, 1, 1]}, lambda: shapely.box("0", 0, 1, 1)),
        ("clip-bound-word", "clip_to_box", {"wkt": SQUARE, "bbox": [0, 0, "max", 1]}, lambda: shapely.clip_by_rect(square, 0, 0, "max", 1)),
        # options
        ("buffer-distance-string", "buffer", {"wkt": LINE, "distance": "10m"}, lambda: line.buffer("10m")),
        ("simplify-negative", "simplify", {"wkt": LINE, "tolerance": -1}, lambda: line.simplify(-1)),
        ("segmentize-zero", "densify", {"wkt": SQUARE, "max_segment_length": 0}, lambda: shapely.segmentize(square, 0)),
        ("interpolate-word", "point_along", {"wkt": LINE, "distance": "half"}, lambda: line.interpolate("half")),
        ("hausdorff-densify-2", "compare_shapes", {"a": SQUARE, "b": LINE, "densify": 2}, lambda: shapely.hausdorff_distance(square, line, densify=2)),
        ("frechet-densify-0", "compare_shapes", {"a": SQUARE, "b": LINE, "densify": 0}, lambda: shapely.frechet_distance(square, line, densify=0)),
        ("relate-pattern-short", "spatial_relation", {"a": SQUARE, "b": LINE, "pattern": "T*F"}, lambda: shapely.relate_pattern(square, line, "T*F")),
        ("concave-ratio-2", "hull_of", {"wkt": SQUARE, "ratio": 2}, lambda: shapely.concave_hull(square, ratio=2)),
        ("make-valid-method", "repair", {"wkt": BOWTIE, "method": "magic"}, lambda: shapely.make_valid(wkt.loads(BOWTIE), method="magic")),
        ("rotate-origin-middle", "rotate", {"wkt": SQUARE, "angle": 45, "origin": "middle"}, lambda: affinity.rotate(square, 45, origin="middle")),
        ("affine-three-coefficients", "transform", {"wkt": SQUARE, "matrix": [1, 2, 3]}, lambda: affinity.affine_transform(square, [1, 2, 3])),
        ("to-wkt-precision-word", "export_wkt", {"wkt": SQUARE, "rounding_precision": "two"}, lambda: shapely.to_wkt(square, rounding_precision="two")),
        ("to-geojson-indent-negative", "export_geojson", {"wkt": SQUARE, "indent": -2}, lambda: shapely.to_geojson(square, indent=-2)),
        ("locate-on-polygon", "position_on_line", {"line": SQUARE, "point": "POINT (1 1)"}, lambda: shapely.line_locate_point(square, Point(1, 1))),
        ("part-index-5", "get_part", {"wkt": "MULTIPOINT ((0 0), (1 1))", "index": 5}, lambda: wkt.loads("MULTIPOINT ((0 0), (1 1))").geoms[5]),
        ("split-point-by-point", "split", {"wkt": "POINT (0 0)", "splitter": "POINT (1 1)"}, lambda: ops.split(Point(0, 0), Point(1, 1))),
        ("substring-of-point", "substring", {"wkt": "POINT (0 0)", "start": 0, "end": 1}, lambda: ops.substring(Point(0, 0), 0, 1)),
        # the model's own invalid polygon in an overlay
        ("bowtie-intersection", "overlap_area", {"a": BOWTIE, "b": SQUARE}, lambda: wkt.loads(BOWTIE).intersection(square)),
        ("bowtie-union", "merge_areas", {"parts": [BOWTIE, SQUARE]}, lambda: shapely.union_all([wkt.loads(BOWTIE), square])),
    ]  # fmt: skip
    return calls


PARCELS_WKT = (
    "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\n"
    "POLYGON ((0 0, 10 0, 10 10, 0 10))\n"
    "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0)\n"
    "MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((20 20, 30 20, 30 30))\n"
    "POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))\n"
)

PARCELS_GEOJSON = {
    "type": "FeatureCollection",
    "features": [
        {"type": "Feature", "properties": {"id": "P-1"}, "geometry": {"type": "Polygon", "coordinates": [[0, 0], [1, 0], [1, 1], [0, 0]]}},
        {"type": "Feature", "properties": {"id": "P-2"}, "geometry": {"type": "Polygn", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}},
        {"type": "Feature", "properties": {"id": "P-3"}, "geometry": {"type": "LineString", "coordinates": [[5, 5]]}},
        {"type": "Feature", "properties": {"id": "P-4"}, "geometry": {"type": "Point", "coordinates": ["", ""]}},
        {"type": "Feature", "properties": {"id": "P-5"}, "geometry": {"type": "MultiPolygon"}},
    ],
}  # fmt: skip

BOUNDARIES = {
    "/boundaries/DE-BE": {"id": "DE-BE", "geometry": {"type": "Polygon", "coordinates": [[[13.0, 52.3], [13.8, 52.3]]]}},
    "/boundaries/DE-HH": {"id": "DE-HH", "geometry": {"type": "Polgon", "coordinates": [[[9.7, 53.4], [10.3, 53.4], [10.3, 53.7], [9.7, 53.4]]]}},
    "/boundaries/DE-HB": {"id": "DE-HB", "geometry": {"type": "Point", "coordinates": [8.8, 53.1, 0.0, 1.0]}},
    "/boundaries/DE-BY": {"id": "DE-BY", "geometry": {"type": "Polygon", "coordinates": [[[9, 47], [13, 50], [13, 47], [9, 50], [9, 47]]]}},
    "/boundaries/DE-SN": {"id": "DE-SN", "wkt": "POLYGON ((12 50, 15 50, 15 51, 12 51)"},
    "/boundaries/DE-NW": {"id": "DE-NW", "geometry": None},
}  # fmt: skip


def _file_cases(ctx: Context) -> Iterator[tuple[str, str, dict[str, Any], BaseException]]:
    """(slug, tool, the model's arguments, exception) of bad data in files on disk."""
    import shapely
    from shapely import wkb, wkt
    from shapely.geometry import shape

    square = wkt.loads(SQUARE)
    path = ctx.tmp / "parcels.wkt"
    path.write_text(PARCELS_WKT)
    lines = path.read_text().splitlines()
    for slug, line in zip(("ring-not-closed", "unbalanced", "multi-ring-short"), lines[1:4]):
        yield f"file-wkt-{slug}", "load_parcels", {"path": str(path)}, _catch(lambda: wkt.loads(line))
    bowtie = wkt.loads(lines[4])
    args = {"path": str(path), "clip": SQUARE}
    yield "file-wkt-invalid-overlay", "clip_parcels", args, _catch(lambda: bowtie.intersection(square))

    gpath = ctx.tmp / "parcels.geojson"
    gpath.write_text(json.dumps(PARCELS_GEOJSON))
    features = json.loads(gpath.read_text())["features"]
    for slug, feature in zip(
        ("ring-not-nested", "type-typo", "line-one-point", "point-empty-strings", "no-coordinates"), features
    ):
        exc = _catch(lambda: shape(feature["geometry"]))
        yield f"file-geojson-{slug}", "load_parcels", {"path": str(gpath)}, exc

    blob = ctx.tmp / "parcel.wkb"
    blob.write_bytes(wkb.dumps(square)[:30])
    yield (
        "file-wkb-truncated",
        "load_parcels",
        {"path": str(blob)},
        _catch(lambda: wkb.loads(blob.read_bytes())),
    )
    htmlfile = ctx.tmp / "parcel-2.wkb"
    htmlfile.write_bytes(b"<html><body>Moved</body></html>")
    exc = _catch(lambda: wkb.loads(htmlfile.read_bytes()))
    yield "file-wkb-not-wkb", "load_parcels", {"path": str(htmlfile)}, exc
    jpath = ctx.tmp / "parcel.json"
    jpath.write_text('{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]')
    exc = _catch(lambda: shapely.from_geojson(jpath.read_text()))
    yield "file-geojson-text-truncated", "load_parcels", {"path": str(jpath)}, exc


def _service_cases(ctx: Context) -> Iterator[tuple[str, str, dict[str, Any], BaseException]]:
    """(slug, tool, the model's arguments, exception) of bad geometries a boundary service
    answered."""
    from shapely import wkt
    from shapely.geometry import Point, shape

    pages = {p: ("application/json", json.dumps(r).encode()) for p, r in BOUNDARIES.items()}
    with _serve.documents(pages) as port:
        ctx.name_port(port, "BOUNDARYPORT")

        def fetch(page: str) -> Any:
            return json.loads(_serve.get(port, page))

        point = Point(13.4, 52.5)
        region = "/boundaries/DE-BE"
        yield (
            "service-ring-two-points",
            "region_contains",
            {"region_id": "DE-BE", "point": [13.4, 52.5]},
            _catch(lambda: shape(fetch(region)["geometry"]).contains(point)),
        )
        yield (
            "service-type-typo",
            "region_area",
            {"region_id": "DE-HH"},
            _catch(lambda: shape(fetch("/boundaries/DE-HH")["geometry"]).area),
        )
        yield (
            "service-point-4d",
            "region_area",
            {"region_id": "DE-HB"},
            _catch(lambda: shape(fetch("/boundaries/DE-HB")["geometry"]).area),
        )
        square = wkt.loads("POLYGON ((10 48, 12 48, 12 49, 10 49, 10 48))")
        yield (
            "service-invalid-overlay",
            "region_overlap",
            {"region_id": "DE-BY", "area": "POLYGON ((10 48, 12 48, 12 49, 10 49, 10 48))"},
            _catch(lambda: shape(fetch("/boundaries/DE-BY")["geometry"]).intersection(square)),
        )
        yield (
            "service-wkt-unbalanced",
            "region_area",
            {"region_id": "DE-SN"},
            _catch(lambda: wkt.loads(fetch("/boundaries/DE-SN")["wkt"]).area),
        )
        yield (
            "service-geometry-null",
            "region_area",
            {"region_id": "DE-NW"},
            _catch(lambda: shape(fetch("/boundaries/DE-NW")["geometry"]).area),
        )


def _install_cases(ctx: Context) -> Iterator[tuple[str, str, BaseException]]:
    """(slug, cause, exception) of an installation that lacks a file (run before shapely is
    first imported: the dynamic loader must really look for GEOS)."""
    with _pkgcopy.broken_install(ctx.tmp, ["shapely"], hide=("numpy",)):
        exc = _catch(lambda: importlib.import_module("shapely"))
    yield "geos-libs-missing", "the wheel's vendored GEOS libraries (shapely.libs) not installed", exc
    so = next(p.name for p in _shapely_dir().iterdir() if p.name.startswith("lib.") and p.suffix == ".so")
    with _pkgcopy.broken_install(ctx.tmp, ["shapely"], drop=(f"shapely/{so}",), hide=("numpy",)):
        exc = _catch(lambda: importlib.import_module("shapely"))
    yield "lib-module-missing", "installed extension module missing (shapely/lib*.so)", exc


def _shapely_dir() -> Path:
    spec = importlib.util.find_spec("shapely")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent


def cases(ctx: Context) -> Iterator[Case]:
    installs = list(_install_cases(ctx))

    for slug, tool, args, fn in model_calls():
        yield Case(f"shapely-{slug}", LIBRARY, f"geometry argument ({slug})", F, None, _catch(fn), tool, args)
    for slug, tool, args, exc in _file_cases(ctx):
        yield Case(
            f"shapely-{slug}", LIBRARY, "parcels file on disk has a bad geometry", A, None, exc, tool, args
        )
    for slug, tool, args, exc in _service_cases(ctx):
        cause = "boundary service answered a bad geometry"
        yield Case(f"shapely-{slug}", LIBRARY, cause, A, None, exc, tool, args)
    for slug, cause, exc in installs:
        yield Case(f"shapely-{slug}", LIBRARY, cause, U, None, exc, "area_of", {"wkt": SQUARE})
