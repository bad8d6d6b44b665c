"""Release readiness, read from the repository's files (run by ``nox -s wheels``).

Versions in one place per package and the adapters' bound on toolerr-core in step with
the core's version; one license; the same project URLs everywhere; every third-party
module a package imports declared by that package; one version range per dependency
across packages; the install lines each README gives.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "shared_core"
ADAPTERS = sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))
PACKAGES = [CORE, *ADAPTERS]
REPOSITORY = "https://github.com/toolerr/toolerr"

# import name -> distribution that provides it (extend when a package imports a new one)
DISTRIBUTION_OF = {
    "accelerate": "accelerate",
    "agents": "openai-agents",
    "anyio": "anyio",
    "claude_agent_sdk": "claude-agent-sdk",
    "gguf": "gguf",
    "google": "google-adk",
    "httpx": "httpx",
    "jsonschema": "jsonschema",
    "langchain": "langchain",
    "langchain_core": "langchain-core",
    "langchain_mcp_adapters": "langchain-mcp-adapters",
    "langgraph": "langgraph",
    "litellm": "litellm",
    "matplotlib": "matplotlib",
    "mcp": "mcp",
    "numpy": "numpy",
    "openai": "openai",
    "pydantic": "pydantic",
    "pydantic_ai": "pydantic-ai-slim",
    "referencing": "referencing",
    "strands": "strands-agents",
    "torch": "torch",
    "tqdm": "tqdm",
    "transformers": "transformers",
    "fastmcp": "fastmcp",
}


def _project(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))
    return data


def _module(directory: Path) -> Path:
    (src,) = _project(directory)["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    return directory / src


def _version(directory: Path) -> str:
    text = (_module(directory) / "__init__.py").read_text(encoding="utf-8")
    (version,) = re.findall(r'^__version__ = "([^"]+)"$', text, flags=re.M)
    return version


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert match, requirement
    return match[0].lower().replace("_", "-")


def _spec(requirement: str) -> str:
    return requirement[len(_name(requirement)) :].split(";")[0].strip()


def _runtime_requirements(directory: Path) -> list[str]:
    """Dependencies and every extra but the test one (what a user may install)."""
    project = _project(directory)["project"]
    extras = project.get("optional-dependencies", {})
    return [*project.get("dependencies", []), *(r for k, v in extras.items() if k != "test" for r in v)]


def _ids(directories: list[Path]) -> list[str]:
    return [d.relative_to(ROOT).as_posix() for d in directories]


def test_the_repository_has_every_package() -> None:
    assert {p.name for p in ADAPTERS} >= {"hf", "langchain", "mcp", "openai-agents"}


@pytest.mark.parametrize("directory", PACKAGES, ids=_ids(PACKAGES))
def test_version_is_written_once(directory: Path) -> None:
    """``[project] dynamic = ["version"]``, read by hatch from ``__version__``."""
    project = _project(directory)
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    init = _module(directory).relative_to(directory) / "__init__.py"
    assert project["tool"]["hatch"]["version"]["path"] == init.as_posix()
    assert re.fullmatch(r"\d+\.\d+\.\d+", _version(directory))


@pytest.mark.parametrize("directory", ADAPTERS, ids=_ids(ADAPTERS))
def test_adapter_bound_on_the_core_is_in_step(directory: Path) -> None:
    """An adapter accepts the core's current minor series and nothing later: a release of
    the core that moves the minor version moves every adapter's bound with it."""
    major, minor, _ = (int(x) for x in _version(CORE).split("."))
    expected = f">={major}.{minor},<{major}.{minor + 1}" if major == 0 else f">={major}.{minor},<{major + 1}"
    (core,) = [r for r in _project(directory)["project"]["dependencies"] if _name(r) == "toolerr-core"]
    assert _spec(core) == expected


def test_adapters_share_the_core_version() -> None:
    assert {_version(d) for d in ADAPTERS} == {_version(CORE)}


@pytest.mark.parametrize("directory", PACKAGES, ids=_ids(PACKAGES))
def test_license_is_shipped_in_every_distribution(directory: Path) -> None:
    root = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert root.startswith("MIT License\n")
    assert "Copyright (c) 2026 toolerr contributors" in root
    assert (directory / "LICENSE").read_text(encoding="utf-8") == root
    assert _project(directory)["project"]["license"] == "MIT"


@pytest.mark.parametrize("directory", PACKAGES, ids=_ids(PACKAGES))
def test_project_urls(directory: Path) -> None:
    relative = directory.relative_to(ROOT).as_posix()
    assert _project(directory)["project"]["urls"] == {
        "Homepage": REPOSITORY,
        "Documentation": f"{REPOSITORY}/tree/main/{relative}#readme",
        "Changelog": f"{REPOSITORY}/blob/main/CHANGELOG.md",
        "Issues": f"{REPOSITORY}/issues",
    }


def _is_type_checking_block(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:`` (without an ``else``)."""
    if not isinstance(node, ast.If) or node.orelse:
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _third_party_imports(directory: Path) -> dict[str, str]:
    """Top-level third-party module -> a file that imports it (``import_module`` strings too)."""
    found: dict[str, str] = {}
    for path in sorted(_module(directory).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(n) for n in ast.walk(tree) if _is_type_checking_block(n) for n in ast.walk(n)}
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue  # ``if TYPE_CHECKING:`` imports run under the type checker only
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute | ast.Name)
                and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names = [node.args[0].value]
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top.startswith("toolerr") or top == "__future__":
                    continue
                found.setdefault(top, path.relative_to(ROOT).as_posix())
    return found


@pytest.mark.parametrize("directory", PACKAGES, ids=_ids(PACKAGES))
def test_every_import_is_declared(directory: Path) -> None:
    """What a package's code imports is in its dependencies or in one of its extras."""
    declared = {_name(r) for r in _runtime_requirements(directory)}
    for module, where in _third_party_imports(directory).items():
        assert module in DISTRIBUTION_OF, f"{where} imports {module}: add its distribution to DISTRIBUTION_OF"
        assert DISTRIBUTION_OF[module] in declared, f"{where} imports {module}: not declared"
    if directory == CORE:
        assert _project(directory)["project"]["dependencies"] == []  # the core is stdlib only


def test_one_range_per_dependency_across_packages() -> None:
    ranges: dict[str, dict[str, str]] = {}
    for directory in PACKAGES:
        for requirement in _runtime_requirements(directory):
            ranges.setdefault(_name(requirement), {})[directory.name] = _spec(requirement)
    drift = {name: where for name, where in ranges.items() if len(set(where.values())) > 1}
    assert drift == {}


def test_changelog_has_the_current_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {_version(CORE)}" in changelog


@pytest.mark.parametrize("directory", ADAPTERS, ids=_ids(ADAPTERS))
def test_readmes_give_both_install_lines(directory: Path) -> None:
    """The line for after the release and the line that works from a clone today, in the
    package's README (its PyPI page) and in the root README."""
    name = _project(directory)["project"]["name"]
    relative = directory.relative_to(ROOT).as_posix()
    clone = re.compile(
        # (other folders it needs may stand between, e.g. ``./packages/hf`` for ``./packages/eval``)
        r"pip install (?:\S+ )*\./shared_core (?:\./\S+ )*\./"
        + re.escape(relative)
        + r"(?:\[[a-z,]+\])?(?=[\s`]|$)"
    )
    for readme in (directory / "README.md", ROOT / "README.md"):
        text = readme.read_text(encoding="utf-8")
        assert f"pip install {name}" in text, readme
        assert clone.search(text), f"{readme}: no `pip install ./shared_core ./{relative}` line"


@pytest.mark.parametrize("directory", PACKAGES, ids=_ids(PACKAGES))
def test_no_pointer_to_a_file_no_wheel_ships(directory: Path) -> None:
    """Docstrings and messages (every string in the code; comments are for maintainers)
    name the contract's sections, not a repository file's numbered sections."""
    for path in sorted(_module(directory).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not re.search(r"DELIVERY\.md (section|§|\d)", node.value), (path, node.lineno)


def test_core_readme_is_a_real_page() -> None:
    text = (CORE / "README.md").read_text(encoding="utf-8")
    assert "pip install toolerr-core" in text
    assert "pip install ./shared_core" in text
    assert len(text.splitlines()) > 30
