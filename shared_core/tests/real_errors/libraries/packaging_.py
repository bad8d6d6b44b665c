# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""packaging: versions, specifiers, requirements, markers, file names, tags and licence
expressions the model wrote in its arguments (fixable); core metadata and requirement
lines read from files on disk or from a package index's JSON on 127.0.0.1 (ambiguous);
the interpreter's integer digit limit (unrecoverable).

Labels follow the cause: a dependency tool (``add_dependency``, ``pin_version``) passes the
model's string straight to ``Version``/``SpecifierSet``/``Requirement``/``Marker``, so a
rejection there is the model's to fix (PEP 440, PEP 508, the wheel and sdist file name
specs, PEP 639 licence expressions). The same parsers failing on a ``METADATA`` file, a
``requirements.txt`` or an index's ``/pypi/<name>/json`` answer (PyPI JSON API layout:
https://docs.pypi.org/api/json/) read text the model never wrote: ambiguous. A version
with more digits than ``sys.get_int_max_str_digits()`` stops in ``int()`` whatever is
reworded around it: unrecoverable, like ``json-int-digits``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "packaging"
REQUIRES = ["packaging>=26,<27"]

MODEL_VERSIONS: list[tuple[str, str]] = [
    ("version-word", "latest"),
    ("version-double-dot", "v1..2"),
    ("version-empty", ""),
    ("version-maven-snapshot", "1.0.0-SNAPSHOT"),
    ("version-caret", "^1.2"),
    ("version-x-wildcard", "1.2.x"),
    ("version-spaces", "1. 2. 3"),
]
MODEL_SPECIFIERS: list[tuple[str, str]] = [
    ("spec-caret", "^1.2"),
    ("spec-npm-tilde", "~1.2"),
    ("spec-space-separated", ">=1.0 <2.0"),
    ("spec-reversed-operator", "=>1.0"),
    ("spec-inner-wildcard", "==1.*.3"),
    ("spec-compatible-one-part", "~=1"),
    ("spec-bare-version", "1.2.3"),
    ("spec-or", ">=1.0 || <0.5"),
]
MODEL_REQUIREMENTS: list[tuple[str, str]] = [
    ("req-space-in-specifier", "requests>=2 <3"),
    ("req-unclosed-extras", "numpy["),
    ("req-pip-command", "pip install requests"),
    ("req-vcs-url-no-name", "git+https://github.com/x/y.git"),
    ("req-at-no-url", "foo @ "),
    ("req-unknown-marker-var", "django; os == 'linux'"),
    ("req-editable-flag", "-e ."),
    ("req-index-url-option", "torch==2.1.0+cu118 --index-url https://download.example/whl"),
]
MODEL_MARKERS: list[tuple[str, str]] = [
    ("marker-unquoted-version", "python_version >= 3.8"),
    ("marker-unknown-variable", "platform == 'linux'"),
    ("marker-c-and", "python_version >= '3.8' &&"),
    ("marker-single-equals", "sys_platform = 'win32'"),
]


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[Any], Any]]]:
    """(slug, the one argument the model wrote, the parser its value is passed to)."""
    from packaging.licenses import canonicalize_license_expression
    from packaging.markers import Marker
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.tags import parse_tag
    from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
    from packaging.version import Version

    calls: list[tuple[str, dict[str, Any], Callable[[Any], Any]]] = []
    calls += [(name, {"version": text}, Version) for name, text in MODEL_VERSIONS]
    calls += [(name, {"specifier": text}, SpecifierSet) for name, text in MODEL_SPECIFIERS]
    calls += [(name, {"requirement": text}, Requirement) for name, text in MODEL_REQUIREMENTS]
    calls += [(name, {"marker": text}, Marker) for name, text in MODEL_MARKERS]
    calls += [
        ("wheel-name-is-sdist", {"filename": "requests-2.31.0.tar.gz"}, parse_wheel_filename),
        ("wheel-name-missing-tags", {"filename": "requests-2.31.0-py3.whl"}, parse_wheel_filename),
        ("wheel-name-bad-version", {"filename": "requests-latest-py3-none-any.whl"}, parse_wheel_filename),
        ("wheel-name-bad-build", {"filename": "foo-1.0-abc-py3-none-any.whl"}, parse_wheel_filename),
        ("sdist-name-is-wheel", {"filename": "requests-2.31.0.whl"}, parse_sdist_filename),
        ("sdist-name-no-version", {"filename": "requests.tar.gz"}, parse_sdist_filename),
        ("sdist-name-bad-version", {"filename": "requests-two.tar.gz"}, parse_sdist_filename),
        ("tag-one-part", {"tag": "cp311"}, parse_tag),
        ("name-with-space", {"name": "my package"}, lambda name: canonicalize_name(name, validate=True)),
        ("version-null", {"version": None}, Version),
        ("version-number", {"version": 3.11}, Version),
        ("license-dangling-or", {"license": "MIT or"}, canonicalize_license_expression),
        ("license-unknown-id", {"license": "Foobar-1.0"}, canonicalize_license_expression),
        ("license-unclosed-paren", {"license": "GPL-3.0+ AND (MIT"}, canonicalize_license_expression),
        ("req-unclosed-paren", {"requirement": "requests (>=2.0"}, Requirement),
    ]
    return calls


# core metadata files (PEP 566 / core metadata spec) of installed or downloaded packages
METADATA_FILES: list[tuple[str, str, str]] = [
    ("metadata-no-version", "METADATA without Version", "Metadata-Version: 2.1\nName: foo\n"),
    ("metadata-unknown-spec", "unknown Metadata-Version", "Metadata-Version: 9.9\nName: foo\nVersion: 1\n"),
    (
        "metadata-bad-fields",
        "METADATA with a bad version and requirement",
        "Metadata-Version: 2.1\nName: foo\nVersion: banana\nRequires-Dist: bar >>1\n",
    ),
    (
        "metadata-dynamic-too-old",
        "field newer than the declared spec",
        "Metadata-Version: 2.1\nName: foo\nVersion: 1\nDynamic: Name\n",
    ),
]


def cases(ctx: Context) -> Iterator[Case]:
    from packaging.metadata import Metadata
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    for name, args, parse in model_calls():
        exc = _catch(lambda: parse(*args.values()))
        yield Case(
            f"packaging-{name}",
            LIBRARY,
            f"argument ({name})",
            F,
            None,
            exc,
            "add_dependency",
            arguments=args,
        )

    # files on disk: text the model did not write
    for name, cause, text in METADATA_FILES:
        path = ctx.tmp / f"{name}.dist-info" / "METADATA"
        path.parent.mkdir()
        path.write_text(text)
        exc = _catch(lambda: Metadata.from_email(path.read_text()))
        yield Case(
            f"packaging-{name}",
            LIBRARY,
            cause,
            A,
            None,
            exc,
            "inspect_package",
            arguments={"path": str(path)},
        )
    broken = ctx.tmp / "broken.dist-info" / "METADATA"
    broken.parent.mkdir()
    broken.write_bytes(b"Metadata-Version: 2.1\nName: \xff\xfe\nVersion: 1\n")
    exc = _catch(lambda: Metadata.from_email(broken.read_bytes()))
    yield Case(
        "packaging-metadata-not-utf8",
        LIBRARY,
        "METADATA not UTF-8",
        A,
        None,
        exc,
        "inspect_package",
        arguments={"path": str(broken)},
    )
    gone = ctx.tmp / "gone.dist-info" / "METADATA"
    exc = _catch(lambda: Metadata.from_email(gone.read_text()))
    yield Case(
        "packaging-metadata-missing",
        LIBRARY,
        "METADATA file missing",
        A,
        None,
        exc,
        "inspect_package",
        arguments={"path": str(gone)},
    )
    reqs = ctx.tmp / "requirements.txt"
    reqs.write_text("flask>=2\nrequests>=2 <3\n")

    def read_requirements() -> None:
        for line in reqs.read_text().splitlines():
            Requirement(line)

    yield Case(
        "packaging-requirements-file-line",
        LIBRARY,
        "requirements file on disk has a bad line",
        A,
        None,
        _catch(read_requirements),
        "install_requirements",
        arguments={"path": str(reqs)},
    )

    # a package index's JSON API answering a version string PEP 440 rejects
    index = {
        "/pypi/legacy/json": ("application/json", b'{"info": {"version": "2004d"}, "releases": {}}'),
        "/pypi/odd/json": ("application/json", b'{"info": {"requires_python": ">=3.6.*"}}'),
    }
    with _serve.documents(index) as port:
        ctx.name_port(port, "INDEXPORT")

        def index_version() -> None:
            body = _serve.get(port, "/pypi/legacy/json")
            Version(body.split('"version": "')[1].split('"')[0])

        def index_requires_python() -> None:
            body = _serve.get(port, "/pypi/odd/json")
            SpecifierSet(body.split('"requires_python": "')[1].split('"')[0])

        yield Case(
            "packaging-index-version",
            LIBRARY,
            "index answers a non-PEP 440 version",
            A,
            None,
            _catch(index_version),
            "check_updates",
            arguments={"package": "legacy"},
        )
        yield Case(
            "packaging-index-requires-python",
            LIBRARY,
            "index answers an invalid Requires-Python",
            A,
            None,
            _catch(index_requires_python),
            "check_updates",
            arguments={"package": "odd"},
        )

    # the interpreter's limit on integer digits
    version = "1." + "9" * 5000
    exc = _catch(lambda: Version(version))
    yield Case(
        "packaging-version-digits",
        LIBRARY,
        "release beyond the digit limit",
        U,
        None,
        exc,
        "pin_version",
        arguments={"version": version},
    )
    specifier = "==2." + "7" * 5000
    exc = _catch(lambda: SpecifierSet(specifier).contains("2.7"))
    yield Case(
        "packaging-spec-digits",
        LIBRARY,
        "specifier beyond the digit limit",
        U,
        None,
        exc,
        "pin_version",
        arguments={"specifier": specifier},
    )
