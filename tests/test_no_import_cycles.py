"""No import cycle anywhere in src (issue 24): a module that imports itself through others, even
only for its type annotations, is one room that cannot be read (or moved) without the others.
The import graph is grimp's, the one import-linter checks the layer contracts on."""

from __future__ import annotations

import grimp


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_src_has_no_import_cycle() -> None:
    graph = grimp.build_graph("roomsync")
    assert len(graph.modules) > 100
    assert cycles(graph) == []


def test_the_check_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "a.one", "a.two", "a.three", "a.four"):
        graph.add_module(name)
    graph.add_import(importer="a.one", imported="a.two")
    graph.add_import(importer="a.two", imported="a.three")
    graph.add_import(importer="a.three", imported="a.one")
    graph.add_import(importer="a.four", imported="a.one")
    assert cycles(graph) == [["a.one", "a.three", "a.two"]]
