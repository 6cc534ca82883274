"""The package's rooms and the imports between them, read from the code (docs/architecture.md).

A room is a subpackage of ``kernelsdp`` (``kernelsdp/solvers/``) or a module at its top
(``kernelsdp/errors.py``); an arrow A -> B says that some file of A imports one of B, at
module level or inside a function (a lazy import is an arrow too: it runs when called).
Rooms are stacked in floors, each above everything it imports; the rooms that import each
other in a circle are printed with the import lines that close it.

    python tools/import_graph.py            # floors, circles, and the arrows of each room
    python tools/import_graph.py --circles  # circles only

The exit status is 1 when there is a circle.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "kernelsdp"
#: kernelsdp/__init__.py only hands names on (lazily): no arrow to or from it is drawn
FACE = f"{PACKAGE}/__init__.py"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room(module: str) -> str:
    """kernelsdp.solvers.admm.run -> kernelsdp/solvers/; kernelsdp.errors -> kernelsdp/errors.py;
    a name of the package's face (kernelsdp.__version__) -> FACE."""
    parts = module.split(".")
    if len(parts) > 1 and (ROOT / PACKAGE / parts[1]).is_dir():
        return f"{PACKAGE}/{parts[1]}/"
    if len(parts) > 1 and (ROOT / PACKAGE / f"{parts[1]}.py").is_file():
        return f"{PACKAGE}/{parts[1]}.py"
    return FACE


def imports(path: Path) -> list[tuple[str, str]]:
    """(imported module, where) of every import of the package in ``path``; ``where`` is
    ``line N``, or ``line N, lazy`` for an import inside a function."""
    name, out = module_name(path), []
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lazy = {
        id(n)
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        for n in ast.walk(f)
    }
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', 0)}" + (", lazy" if id(node) in lazy else "")
        if isinstance(node, ast.Import):
            out += [(a.name, where) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            out += [(f"{base}.{a.name}", where) for a in node.names]
    return [(m, where) for m, where in out if m.split(".")[0] == PACKAGE]


def arrows() -> dict[tuple[str, str], list[str]]:
    """(room A, room B) -> the import lines by which A imports B."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        a = room(module_name(path))
        for target, where in imports(path):
            b = room(target)
            if a != b and FACE not in (a, b):
                found[a, b].append(f"{path.relative_to(ROOT)} ({where}) imports {target}")
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one room (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def floors(graph: dict[str, set[str]], rings: list[list[str]]) -> dict[str, int]:
    """Each room's floor: one above the highest room it imports (a circle shares a floor)."""
    ring_of = {r: tuple(c) for c in rings for r in c}
    floor: dict[str, int] = {}

    def height(v: str) -> int:
        if v not in floor:
            floor[v] = 1  # provisional, for the rooms of v's own circle
            below = [
                w for r in ring_of.get(v, (v,)) for w in graph[r] if w not in ring_of.get(v, (v,))
            ]
            floor[v] = 1 + max((height(w) for w in below), default=0)
            for r in ring_of.get(v, ()):
                floor[r] = floor[v]
        return floor[v]

    for v in graph:
        height(v)
    return floor


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if set(argv) - {"--circles"}:
        print(__doc__)
        return 2
    found = arrows()
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in found:
        graph[a].add(b)
        graph[b]
    rings = circles(graph)
    if "--circles" not in argv:
        level = floors(graph, rings)
        for f in sorted(set(level.values()), reverse=True):
            for r in sorted(v for v in level if level[v] == f):
                print(f"floor {f:2}  {r:<32} -> {', '.join(sorted(graph[r])) or '-'}")
    for ring in rings:
        print(f"\ncircle: {' / '.join(ring)}")
        for (a, b), lines in sorted(found.items()):
            if a in ring and b in ring:
                print(f"  {a} -> {b}: {lines[0]}" + (f" (+{len(lines) - 1})" if lines[1:] else ""))
    if not rings:
        print("\nno circles")
    return 1 if rings else 0


if __name__ == "__main__":
    sys.exit(main())
