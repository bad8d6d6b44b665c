# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""NetworkX behind a graph tool: graphs built from the edges the model wrote, or read by
NetworkX itself from an edge-list / GML / GraphML / node-link file on disk or from a
dependency-graph service on 127.0.0.1, then queried (paths, orders, flows, centralities).

Labels follow the cause. Built from the model's own edges, nodes, weights, options or GML /
GraphML / edge-list text, every failure is the model's to fix: a node it named that is not
in the graph (``NodeNotFound`` "Source z is not in G", ``NetworkXError`` "The node z is not
in the graph"), edges of the wrong shape ("Edge tuple ... must be a 2-tuple or 3-tuple"),
an algorithm that does not apply to what it built (``NetworkXNotImplemented`` "not
implemented for directed type", ``NetworkXUnfeasible`` for a topological order of its own
cycle, ``NetworkXUnbounded`` for its negative cycle or uncapacitated flow,
``NetworkXNoPath`` between parts its own edges never join, ``NetworkXPointlessConcept``
for an empty graph, ``PowerIterationFailedConvergence`` under the ``max_iter`` it chose)
(https://networkx.org/documentation/stable/reference/exceptions.html, and the pages of
``shortest_path``, ``topological_sort``, ``bellman_ford_path``, ``maximum_flow``,
``eigenvector_centrality``, ``parse_gml``, ``parse_edgelist``). A node id the model
named that is absent from a graph READ from a file is still the model's made-up name:
fixable; so is a path it named that does not exist or is a directory (``read_edgelist``
opens it through ``networkx.utils.open_file``). The same parsers and algorithms failing
because of the FILE's or the SERVICE's content (a cycle in a dependency file, a weight
that is text, a GML node without an id, an edge-list line whose weight is not a number, a
GraphML ``data`` element naming an undeclared key, node-link JSON without ``edges``,
regions the file never joins) are about data the model never wrote: ambiguous.

Unrecoverable: a file the tool may not read or a directory it may not write
(``PermissionError``, run as an ordinary user, :mod:`libraries._files`), a write past the
process' file-size quota (``EFBIG``), and optional dependencies NetworkX imports lazily that
the installation lacks: SciPy for ``pagerank`` / ``hits`` / ``adjacency_matrix``, NumPy for
``to_numpy_array``, Matplotlib for ``draw``, pydot for ``write_dot``
(https://networkx.org/documentation/stable/install.html "Extra packages"), and a module
file of NetworkX itself missing (:mod:`libraries._pkgcopy`).

Not triggerable: NetworkX does no network I/O (no transient case: the service is read by
the tool's own HTTP client); no recursion or memory limit was reachable with the graph
sizes a tool passes (its traversals are iterative).
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _files, _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "networkx"
REQUIRES = ["networkx>=3.4,<3.7"]

EDGES = [["a", "b"], ["b", "c"], ["x", "y"]]
CYCLE = [["build", "test"], ["test", "deploy"], ["deploy", "build"]]
NEG = [["a", "b", -2], ["b", "a", 1]]


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call) of each bad argument."""
    import networkx as nx

    g = nx.Graph([tuple(e) for e in EDGES])
    cyc = nx.DiGraph([tuple(e) for e in CYCLE])
    neg = nx.DiGraph()
    neg.add_weighted_edges_from([tuple(e) for e in NEG])
    flow = nx.DiGraph()
    flow.add_edge("s", "t", capacity=3)
    uncapped = nx.DiGraph([("s", "m"), ("m", "t")])
    dag = nx.DiGraph([("a", "b"), ("b", "c")])
    tri = nx.Graph([(1, 2), (2, 3), (3, 1)])
    loop = nx.Graph([(1, 1), (1, 2)])
    star = nx.DiGraph([("hub", "a"), ("b", "c")])
    sw = nx.DiGraph()
    sw.add_edge("a", "b", weight="5")
    sw.add_edge("b", "c", weight=1)

    e, ab = {"edges": EDGES}, {"edges": EDGES, "source": "a"}
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        # paths over the model's own edges
        ("no-path", "shortest_route", {**ab, "target": "y"}, lambda: nx.shortest_path(g, "a", "y")),
        ("no-path-length", "route_length", {**ab, "target": "y"}, lambda: nx.shortest_path_length(g, "a", "y")),
        ("dijkstra-no-path", "shortest_route", {**ab, "target": "y", "weight": "weight"}, lambda: nx.dijkstra_path(g, "a", "y")),
        ("target-unknown", "shortest_route", {**ab, "target": "z"}, lambda: nx.shortest_path(g, "a", "z")),
        ("source-unknown", "shortest_route", {**e, "source": "A", "target": "c"}, lambda: nx.shortest_path(g, "A", "c")),
        ("dijkstra-source-unknown", "shortest_route", {**e, "source": "q", "target": "c", "weight": "weight"}, lambda: nx.dijkstra_path(g, "q", "c")),
        ("astar-target-unknown", "shortest_route", {**ab, "target": "C", "method": "astar"}, lambda: nx.astar_path(g, "a", "C")),
        ("has-path-unknown", "is_reachable", {**ab, "target": "z"}, lambda: nx.has_path(g, "a", "z")),
        ("bfs-start-unknown", "explore", {**e, "start": "z"}, lambda: list(nx.bfs_edges(g, "z"))),
        ("neighbors-unknown", "neighbors_of", {**e, "node": "z"}, lambda: list(g.neighbors("z"))),
        ("degree-unknown", "degree_of", {**e, "node": "z"}, lambda: g.degree["z"]),
        ("remove-edge-absent", "remove_link", {**e, "remove": ["a", "c"]}, lambda: g.copy().remove_edge("a", "c")),
        ("remove-node-absent", "remove_node", {**e, "remove": "z"}, lambda: g.copy().remove_node("z")),
        ("ancestors-unknown", "upstream_of", {"edges": [["a", "b"], ["b", "c"]], "directed": True, "node": "z"}, lambda: nx.ancestors(dag, "z")),
        ("predecessors-undirected", "upstream_of", {**e, "directed": False, "node": "a"}, lambda: list(g.predecessors("a"))),
        # orders and cycles
        ("topo-cycle", "build_order", {"edges": CYCLE, "directed": True}, lambda: list(nx.topological_sort(cyc))),
        ("topo-undirected", "build_order", {**e, "directed": False}, lambda: list(nx.topological_sort(g))),
        ("dag-longest-cycle", "critical_path", {"edges": CYCLE, "directed": True}, lambda: nx.dag_longest_path(cyc)),
        ("find-cycle-none", "find_cycle", {"edges": [["a", "b"], ["b", "c"]], "directed": True}, lambda: nx.find_cycle(dag)),
        ("simple-cycles-bound", "list_cycles", {"edges": CYCLE, "directed": True, "length_bound": -1}, lambda: list(nx.simple_cycles(cyc, length_bound=-1))),
        ("cycle-basis-directed", "list_cycles", {"edges": CYCLE, "directed": True, "basis": True}, lambda: nx.cycle_basis(cyc)),
        # weights, flows
        ("negative-cycle", "cheapest_route", {"weighted_edges": NEG, "source": "a", "target": "b"}, lambda: nx.bellman_ford_path(neg, "a", "b")),
        ("weight-as-text", "cheapest_route", {"weighted_edges": [["a", "b", "5"], ["b", "c", 1]], "source": "a", "target": "c"}, lambda: nx.dijkstra_path(sw, "a", "c")),
        ("flow-sink-unknown", "max_flow", {"edges": [["s", "t", {"capacity": 3}]], "source": "s", "sink": "z"}, lambda: nx.maximum_flow(flow, "s", "z")),
        ("flow-same-node", "max_flow", {"edges": [["s", "t", {"capacity": 3}]], "source": "s", "sink": "s"}, lambda: nx.maximum_flow(flow, "s", "s")),
        ("flow-no-capacity", "max_flow", {"edges": [["s", "m"], ["m", "t"]], "source": "s", "sink": "t"}, lambda: nx.maximum_flow(uncapped, "s", "t")),
        ("mst-directed", "spanning_tree", {"edges": CYCLE, "directed": True}, lambda: list(nx.minimum_spanning_edges(cyc))),
        # whole-graph measures
        ("diameter-disconnected", "graph_stats", {**e, "measure": "diameter"}, lambda: nx.diameter(g)),
        ("avg-path-disconnected", "graph_stats", {**e, "measure": "average_shortest_path_length"}, lambda: nx.average_shortest_path_length(g)),
        ("center-disconnected", "graph_stats", {**e, "measure": "center"}, lambda: nx.center(g)),
        ("eulerian-not", "euler_tour", e, lambda: list(nx.eulerian_circuit(g))),
        ("connected-null-graph", "graph_stats", {"edges": [], "measure": "is_connected"}, lambda: nx.is_connected(nx.Graph())),
        ("eigenvector-max-iter", "rank_nodes", {"edges": [["hub", "a"], ["b", "c"]], "directed": True, "method": "eigenvector", "max_iter": 5}, lambda: nx.eigenvector_centrality(star, max_iter=5)),
        ("betweenness-k-too-large", "rank_nodes", {**e, "method": "betweenness", "k": 10}, lambda: nx.betweenness_centrality(g, k=10, seed=1)),
        ("bipartite-triangle", "two_groups", {"edges": [[1, 2], [2, 3], [3, 1]]}, lambda: nx.bipartite.sets(tri)),
        ("bipartite-disconnected", "two_groups", e, lambda: nx.bipartite.sets(g)),
        ("kcore-self-loop", "core_of", {"edges": [[1, 1], [1, 2]], "k": 1}, lambda: nx.k_core(loop, 1)),
        ("isomorphic-mixed-types", "same_shape", {"a": EDGES, "a_directed": False, "b": CYCLE, "b_directed": True}, lambda: nx.is_isomorphic(g, cyc)),
        ("modularity-not-partition", "score_communities", {**e, "communities": [["a"]]}, lambda: nx.community.modularity(g, [{"a"}])),
        ("louvain-resolution-word", "find_communities", {**e, "resolution": "high"}, lambda: nx.community.louvain_communities(g, resolution="high", seed=1)),
        ("coloring-strategy", "color_nodes", {**e, "strategy": "best"}, lambda: nx.greedy_color(g, strategy="best")),
        ("numpy-nodelist-unknown", "adjacency", {**e, "nodelist": ["a", "z"]}, lambda: nx.to_numpy_array(g, nodelist=["a", "z"])),
        ("numpy-nodelist-duplicate", "adjacency", {**e, "nodelist": ["a", "a"]}, lambda: nx.to_numpy_array(g, nodelist=["a", "a"])),
        # building the graph from the model's input
        ("edge-four-items", "build_graph", {"edges": [["a", "b", "c", "d"]]}, lambda: nx.Graph().add_edges_from([("a", "b", "c", "d")])),
        ("edge-as-string", "build_graph", {"edges": ["a-b"]}, lambda: nx.Graph().add_edges_from(["a-b"])),
        ("edge-attr-not-dict", "build_graph", {"edges": [["a", "b", 5]]}, lambda: nx.Graph([("a", "b", 5)])),
        ("weighted-edge-two-items", "build_graph", {"weighted_edges": [["a", "b"]]}, lambda: nx.Graph().add_weighted_edges_from([("a", "b")])),
        ("node-null", "build_graph", {"edges": [[None, "a"]]}, lambda: nx.Graph().add_edge(None, "a")),
        ("node-list", "build_graph", {"nodes": [["a", "b"]]}, lambda: nx.Graph().add_node(["a", "b"])),
        ("dict-of-lists-int", "build_graph", {"adjacency": {"a": 5}}, lambda: nx.from_dict_of_lists({"a": 5})),
        ("node-link-no-edges", "build_graph", {"graph": {"nodes": [{"id": 1}], "links": [{"source": 1, "target": 2}]}}, lambda: nx.node_link_graph({"nodes": [{"id": 1}], "links": [{"source": 1, "target": 2}]})),
        ("tree-child-no-id", "build_tree", {"tree": {"id": 1, "children": [{"name": 2}]}}, lambda: nx.tree_graph({"id": 1, "children": [{"name": 2}]})),
        ("gml-no-id", "import_graph", {"gml": 'graph [ node [ label "a" ] ]'}, lambda: nx.parse_gml('graph [ node [ label "a" ] ]')),
        ("gml-no-label", "import_graph", {"gml": "graph [ node [ id 1 ] ]"}, lambda: nx.parse_gml("graph [ node [ id 1 ] ]")),
        ("gml-edge-target-undefined", "import_graph", {"gml": 'graph [ node [ id 1 label "a" ] edge [ source 1 target 2 ] ]'}, lambda: nx.parse_gml('graph [ node [ id 1 label "a" ] edge [ source 1 target 2 ] ]')),
        ("gml-unclosed", "import_graph", {"gml": "graph [ node [ id 1 "}, lambda: nx.parse_gml("graph [ node [ id 1 ")),
        ("graphml-mismatched-tag", "import_graph", {"graphml": "<graphml><graph><node></graph>"}, lambda: nx.parse_graphml("<graphml><graph><node></graph>")),
        ("edgelist-attr-not-dict", "import_graph", {"lines": ["a b {'w':1"]}, lambda: nx.parse_edgelist(["a b {'w':1"])),
        ("edgelist-weight-word", "import_graph", {"lines": ["a b heavy"], "weighted": True}, lambda: nx.parse_edgelist(["a b heavy"], data=[("weight", float)])),
        ("edgelist-node-not-int", "import_graph", {"lines": ["a b"], "nodetype": "int"}, lambda: nx.parse_edgelist(["a b"], nodetype=int)),
        ("adjlist-node-not-int", "import_graph", {"lines": ["a b"], "format": "adjlist", "nodetype": "int"}, lambda: nx.parse_adjlist(["a b"], nodetype=int)),
        # generators
        ("atlas-index", "example_graph", {"atlas_index": 2000}, lambda: nx.graph_atlas(2000)),
        ("complete-negative", "example_graph", {"kind": "complete", "n": -1}, lambda: nx.complete_graph(-1)),
        ("barabasi-m-too-large", "example_graph", {"kind": "barabasi_albert", "n": 3, "m": 5}, lambda: nx.barabasi_albert_graph(3, 5, seed=1)),
    ]  # fmt: skip
    return calls


EDGELIST = "# service dependencies\napi db\napi cache\ndb api\nweb api\n"
WEIGHTED = "berlin hamburg 289\nhamburg bremen 125\nmunich stuttgart about-230\n"
WEIGHTS_DICT = "berlin hamburg {'weight': '289'}\nhamburg bremen {'weight': 125}\n"
INT_EDGES = "1 2\n2 3\nn4 5\n"
ISLANDS = "berlin hamburg\nhamburg bremen\nmunich stuttgart\n"
GML_NO_ID = 'graph [\n  node [ id 1 label "api" ]\n  node [ label "db" ]\n]\n'
GML_DUP = 'graph [\n  node [ id 1 label "api" ]\n  node [ id 2 label "api" ]\n]\n'
GML_CUT = 'graph [\n  directed 1\n  node [ id 1 label "api" ]\n  edge [ source 1 target\n'
GRAPHML_KEY = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
    '  <graph edgedefault="directed"><node id="api"><data key="d9">x</data></node></graph>\n'
    "</graphml>\n"
)
GRAPHML_CUT = '<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n  <graph edgedefault="directed">\n    <node id="api"/>\n'
NODE_LINK_NO_EDGES = {
    "directed": True,
    "nodes": [{"id": "api"}, {"id": "db"}],
    "links": [{"source": "api", "target": "db"}],
}

DEPENDENCIES = {
    "/graphs/checkout": {"directed": True, "multigraph": False, "graph": {}, "nodes": [{"id": "web"}, {"id": "api"}, {"id": "db"}], "edges": [{"source": "web", "target": "api"}, {"source": "api", "target": "db"}, {"source": "db", "target": "web"}]},
    "/graphs/search": {"directed": True, "nodes": [{"id": "web"}, {"id": "index"}], "links": [{"source": "web", "target": "index"}]},
    "/graphs/billing": {"directed": True, "multigraph": False, "graph": {}, "nodes": [{"id": "api"}, {"id": "ledger"}], "edges": [{"source": "api", "to": "ledger"}]},
    "/graphs/shipping": {"directed": False, "multigraph": False, "graph": {}, "nodes": [{"id": "api"}, {"id": "carrier"}, {"id": "queue"}], "edges": [{"source": "api", "target": "carrier", "weight": "fast"}, {"source": "carrier", "target": "queue", "weight": 2}]},
    "/graphs/ledger": {"directed": False, "multigraph": False, "graph": {}, "nodes": [{"id": "api"}, {"id": "ledger"}, {"id": "audit"}], "edges": [{"source": "api", "target": "ledger"}]},
}  # fmt: skip


def _file_cases(ctx: Context) -> Iterator[tuple[str, str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, kind, tool, the model's arguments, exception) of graphs read from files."""
    import networkx as nx

    d = ctx.tmp / "graphs"
    d.mkdir()

    def put(name: str, text: str) -> str:
        (d / name).write_text(text)
        return str(d / name)

    bad = "graph file on disk has bad content"
    deps = put("deps.edgelist", EDGELIST)
    g = nx.read_edgelist(deps, create_using=nx.DiGraph)
    yield (
        "file-topo-cycle",
        "dependency file has a cycle",
        A,
        "build_order",
        {"path": deps},
        _catch(lambda: list(nx.topological_sort(g))),
    )
    args = {"path": deps, "source": "api", "target": "auth"}
    yield (
        "file-target-unknown",
        "node the model named is not in the file's graph",
        F,
        "shortest_route",
        args,
        _catch(lambda: nx.shortest_path(g, "api", "auth")),
    )
    args = {"path": deps, "node": "Api"}
    yield (
        "file-node-case",
        "node the model named is not in the file's graph",
        F,
        "upstream_of",
        args,
        _catch(lambda: nx.ancestors(g, "Api")),
    )
    isl = put("roads.edgelist", ISLANDS)
    roads = nx.read_edgelist(isl)
    args = {"path": isl, "source": "berlin", "target": "munich"}
    yield (
        "file-no-path",
        "the file's graph does not join the two regions",
        A,
        "shortest_route",
        args,
        _catch(lambda: nx.shortest_path(roads, "berlin", "munich")),
    )
    args = {"path": isl, "measure": "diameter"}
    yield (
        "file-diameter-disconnected",
        "the file's graph is not connected",
        A,
        "graph_stats",
        args,
        _catch(lambda: nx.diameter(roads)),
    )
    w = put("distances.edgelist", WEIGHTED)
    args = {"path": w, "weighted": True}
    yield "file-weight-word", bad, A, "load_graph", args, _catch(lambda: nx.read_weighted_edgelist(w))
    wd = put("distances-attrs.edgelist", WEIGHTS_DICT)
    gw = nx.read_edgelist(wd)
    args = {"path": wd, "source": "berlin", "target": "bremen", "weight": "weight"}
    yield (
        "file-weight-text-in-attrs",
        bad,
        A,
        "cheapest_route",
        args,
        _catch(lambda: nx.dijkstra_path(gw, "berlin", "bremen")),
    )
    ints = put("ids.edgelist", INT_EDGES)
    args = {"path": ints, "nodetype": "int"}
    yield (
        "file-node-not-int",
        bad,
        A,
        "load_graph",
        args,
        _catch(lambda: nx.read_edgelist(ints, nodetype=int)),
    )
    attrs = put("attrs.edgelist", "api db {'latency': 3\n")
    yield (
        "file-attrs-unclosed",
        bad,
        A,
        "load_graph",
        {"path": attrs},
        _catch(lambda: nx.read_edgelist(attrs)),
    )
    for slug, name, text in (
        ("gml-node-no-id", "deps.gml", GML_NO_ID),
        ("gml-duplicate-label", "deps-2.gml", GML_DUP),
        ("gml-truncated", "deps-3.gml", GML_CUT),
    ):
        path = put(name, text)
        yield f"file-{slug}", bad, A, "load_graph", {"path": path}, _catch(lambda: nx.read_gml(path))
    for slug, name, text in (
        ("graphml-undeclared-key", "deps.graphml", GRAPHML_KEY),
        ("graphml-truncated", "deps-2.graphml", GRAPHML_CUT),
    ):
        path = put(name, text)
        yield f"file-{slug}", bad, A, "load_graph", {"path": path}, _catch(lambda: nx.read_graphml(path))
    nl = put("deps.json", json.dumps(NODE_LINK_NO_EDGES))
    yield (
        "file-node-link-no-edges",
        bad,
        A,
        "load_graph",
        {"path": nl},
        _catch(lambda: nx.node_link_graph(json.loads((d / "deps.json").read_text()))),
    )
    neg = put("fx.edgelist", "usd eur -0.1\neur usd -0.2\n")
    fx = nx.read_weighted_edgelist(neg, create_using=nx.DiGraph)
    args = {"path": neg, "source": "usd", "target": "eur"}
    yield (
        "file-negative-cycle",
        "the file's weights form a negative cycle",
        A,
        "cheapest_route",
        args,
        _catch(lambda: nx.bellman_ford_path(fx, "usd", "eur")),
    )

    # paths the model named
    missing = str(d / "dependencies.edgelist")
    yield (
        "path-missing",
        "the path the model gave does not exist",
        F,
        "load_graph",
        {"path": missing},
        _catch(lambda: nx.read_edgelist(missing)),
    )
    yield (
        "path-is-directory",
        "the path the model gave is a directory",
        F,
        "load_graph",
        {"path": str(d)},
        _catch(lambda: nx.read_edgelist(str(d))),
    )
    missing_gml = str(d / "dep.gml")
    yield (
        "path-missing-gml",
        "the path the model gave does not exist",
        F,
        "load_graph",
        {"path": missing_gml},
        _catch(lambda: nx.read_gml(missing_gml)),
    )

    # the operating system's refusals
    shared = _files.read_only_dir(ctx.tmp / "shared")
    secret = shared / "deps.edgelist"
    os.chmod(shared, 0o755)
    secret.write_text(EDGELIST)
    secret.chmod(0o000)
    shared.chmod(0o555)
    args = {"path": str(secret)}
    yield (
        "file-permission-denied",
        "file not readable by the tool's user",
        U,
        "load_graph",
        args,
        _files.denied(lambda: nx.read_edgelist(str(secret))),
    )
    out = str(shared / "export.graphml")
    args = {"edges": EDGES, "path": out}
    yield (
        "write-permission-denied",
        "directory not writable by the tool's user",
        U,
        "export_graph",
        args,
        _files.denied(lambda: nx.write_graphml(nx.Graph([tuple(e) for e in EDGES]), out)),
    )
    big = nx.complete_graph(60)
    out2 = str(d / "export.edgelist")
    with _files.file_size_limit(4096):
        exc = _catch(lambda: nx.write_edgelist(big, out2))
    args = {"kind": "complete", "n": 60, "path": out2}
    yield "write-file-too-large", "file-size quota of the process exceeded", U, "export_graph", args, exc


def _service_cases(ctx: Context) -> Iterator[tuple[str, str, dict[str, Any], BaseException]]:
    """(slug, tool, the model's arguments, exception) of graphs a dependency service answered."""
    import networkx as nx

    pages = {p: ("application/json", json.dumps(r).encode()) for p, r in DEPENDENCIES.items()}
    with _serve.documents(pages) as port:
        ctx.name_port(port, "GRAPHPORT")

        def graph(name: str) -> Any:
            return nx.node_link_graph(json.loads(_serve.get(port, f"/graphs/{name}")), edges="edges")

        yield (
            "service-topo-cycle",
            "deploy_order",
            {"service": "checkout"},
            _catch(lambda: list(nx.topological_sort(graph("checkout")))),
        )
        yield (
            "service-links-not-edges",
            "deploy_order",
            {"service": "search"},
            _catch(lambda: graph("search")),
        )
        yield (
            "service-edge-without-target",
            "deploy_order",
            {"service": "billing"},
            _catch(lambda: graph("billing")),
        )
        args = {"service": "shipping", "source": "api", "target": "queue"}
        yield (
            "service-weight-word",
            "cheapest_route",
            args,
            _catch(lambda: nx.dijkstra_path(graph("shipping"), "api", "queue")),
        )
        args = {"service": "ledger", "source": "api", "target": "audit"}
        yield (
            "service-no-path",
            "shortest_route",
            args,
            _catch(lambda: nx.shortest_path(graph("ledger"), "api", "audit")),
        )


def _install_cases(ctx: Context) -> Iterator[tuple[str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, tool, the model's arguments, exception) of an installation lacking an
    optional dependency or one of NetworkX's own files."""
    import networkx as nx

    g = nx.DiGraph([tuple(e) for e in CYCLE])
    e = {"edges": CYCLE, "directed": True}
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("scipy",)):
        yield (
            "scipy-missing-pagerank",
            "SciPy not installed",
            "rank_nodes",
            {**e, "method": "pagerank"},
            _catch(lambda: nx.pagerank(g)),
        )
        yield (
            "scipy-missing-hits",
            "SciPy not installed",
            "rank_nodes",
            {**e, "method": "hits"},
            _catch(lambda: nx.hits(g)),
        )
        yield (
            "scipy-missing-matrix",
            "SciPy not installed",
            "adjacency",
            {**e, "sparse": True},
            _catch(lambda: nx.adjacency_matrix(g)),
        )
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("numpy",)):
        yield "numpy-missing", "NumPy not installed", "adjacency", e, _catch(lambda: nx.to_numpy_array(g))
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("matplotlib",)):
        yield (
            "matplotlib-missing",
            "Matplotlib not installed",
            "draw_graph",
            {**e, "path": "graph.png"},
            _catch(lambda: nx.draw(g)),
        )
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("pydot",)):
        out = str(ctx.tmp / "graph.dot")
        yield (
            "pydot-missing",
            "pydot not installed",
            "export_graph",
            {**e, "path": out, "format": "dot"},
            _catch(lambda: nx.nx_pydot.write_dot(g, out)),
        )
    with _pkgcopy.broken_install(
        ctx.tmp, ["networkx"], drop=("networkx/algorithms/shortest_paths/weighted.py",)
    ):
        exc = _catch(lambda: importlib.import_module("networkx"))
    args = {"edges": EDGES, "source": "a", "target": "c"}
    yield (
        "module-file-missing",
        "installed module file missing (networkx/algorithms/shortest_paths/weighted.py)",
        "shortest_route",
        args,
        exc,
    )


def cases(ctx: Context) -> Iterator[Case]:
    for slug, tool, args, fn in model_calls():
        yield Case(f"networkx-{slug}", LIBRARY, f"graph argument ({slug})", F, None, _catch(fn), tool, args)
    for slug, cause, kind, tool, args, exc in _file_cases(ctx):
        yield Case(f"networkx-{slug}", LIBRARY, cause, kind, None, exc, tool, args)
    for slug, tool, args, exc in _service_cases(ctx):
        cause = "dependency service answered a bad graph"
        yield Case(f"networkx-{slug}", LIBRARY, cause, A, None, exc, tool, args)
    for slug, cause, tool, args, exc in _install_cases(ctx):
        yield Case(f"networkx-{slug}", LIBRARY, cause, U, None, exc, tool, args)
