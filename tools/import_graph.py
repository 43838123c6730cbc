"""The project's import graph, read from the sources with ``ast`` (nothing is imported).

    python tools/import_graph.py            # the graph between packages, loops, layer breaks
    python tools/import_graph.py --modules  # every module-level arrow as well
    python tools/import_graph.py --check    # exit 1 if a loop or a layer break is found

Every import counts: at the top of a module, inside a function (imported when called) and under
``if TYPE_CHECKING:`` (a loop there is still a loop in the design). A group is a package's
first level below the top (``table_controller.engine``, ``hw_sim.devices``); a top-level module
of a package is its own group (``table_controller.config``).

Layer rules checked: ``firmware_bridge`` and ``vision`` import nothing of ``table_controller``
but the vocabulary; the vocabulary imports nothing of the project; the pure core imports no
hardware, daemon or commands; nothing in ``table_controller`` but the commands imports
``hw_sim``; the simulated devices (``hw_sim.devices``) do not import the scenario harness; no
module loop and no loop between groups; ``firmware`` (the antenna controller's MicroPython
code, which must run on the Pico alone) imports nothing of the project but itself.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

PACKAGES = ("table_controller", "firmware_bridge", "vision", "hw_sim", "firmware")
HARDWARE = ("firmware_bridge", "vision")
PURE_CORE = ("table_controller.engine", "table_controller.monitor", "table_controller.phh")
COMMANDS = ("table_controller.commands", "table_controller.cli")
UPPER = ("table_controller.daemon", *COMMANDS)
SIM_DEVICES, SIM_HARNESS = "hw_sim.devices", "hw_sim.harness"


def modules(root: Path) -> dict[str, Path]:
    """Module name -> file for every module of the project's packages under ``root``."""
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imports(tree: ast.Module, name: str, is_package: bool,
             known: Iterable[str]) -> Iterator[str]:
    """The modules ``name`` imports. ``from package import module`` is an arrow to that module
    alone; ``from module import name`` an arrow to the module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            for alias in node.names:
                full = f"{prefix}.{alias.name}"
                yield full if full in known else prefix


def graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project's modules it imports."""
    mods = modules(root)
    out: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for target in _imports(tree, name, path.name == "__init__.py", mods):
            if target in mods and target != name:
                targets.add(target)
        out[name] = targets
    return out


def group_of(module: str) -> str:
    """``firmware_bridge`` and ``vision`` are one group each; ``table_controller`` and
    ``hw_sim`` one group per subpackage or top-level module."""
    parts = module.split(".")
    return parts[0] if parts[0] in HARDWARE else ".".join(parts[:2])


def loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _is_vocabulary(module: str, vocabulary: Iterable[str]) -> bool:
    return any(module == v or module.startswith(v + ".") for v in vocabulary)


def breaks(edges: dict[str, set[str]], vocabulary: tuple[str, ...]) -> list[str]:
    """Arrows that go the wrong way between layers: the vocabulary at the bottom; hardware
    (``firmware_bridge``, ``vision``) and the pure core (engine, monitor, hand histories) on it;
    the daemon above them; the simulator and the commands on top."""
    out = []
    for source, targets in sorted(edges.items()):
        top = source.split(".")[0]
        for target in sorted(targets):
            if target == "table_controller":
                continue  # the package's own __init__: a version string
            wrong = None
            if _is_vocabulary(source, vocabulary):
                if not _is_vocabulary(target, vocabulary):
                    wrong = "the vocabulary imports the project"
            elif top == "firmware":
                if target.split(".")[0] != "firmware":
                    wrong = "the firmware imports the project (it runs on the Pico alone)"
            elif top in HARDWARE:
                if target.startswith("table_controller") and not _is_vocabulary(
                        target, vocabulary):
                    wrong = "hardware imports the controller"
                elif target.startswith("hw_sim"):
                    wrong = "hardware imports the simulator"
            elif group_of(source) in PURE_CORE:
                if target.split(".")[0] in (*HARDWARE, "hw_sim") or group_of(target) in UPPER:
                    wrong = "the pure core imports hardware, the daemon or the commands"
            elif (top == "table_controller" and group_of(source) not in COMMANDS
                  and (target.startswith("hw_sim") or group_of(target) in COMMANDS)):
                wrong = "the controller imports the simulator or the commands"
            elif group_of(source) == SIM_DEVICES and group_of(target) == SIM_HARNESS:
                wrong = "a simulated device imports the scenario harness"
            if wrong:
                out.append(f"{source} -> {target}: {wrong}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--modules", action="store_true", help="print every module's arrows")
    parser.add_argument("--check", action="store_true", help="exit 1 on a loop or a layer break")
    parser.add_argument("--vocabulary", default="table_controller.vocabulary",
                        help="comma-separated module prefixes that form the vocabulary")
    args = parser.parse_args(argv)
    vocabulary = tuple(v.strip() for v in args.vocabulary.split(",") if v.strip())
    edges = graph(args.root)
    between: dict[tuple[str, str], int] = defaultdict(int)
    for source, targets in edges.items():
        for target in targets:
            if group_of(source) != group_of(target):
                between[(group_of(source), group_of(target))] += 1
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} arrows")
    print("\narrows between groups (count):")
    for (a, b), n in sorted(between.items()):
        print(f"  {a} -> {b} ({n})")
    group_edges: dict[str, set[str]] = defaultdict(set)
    for a, b in between:
        group_edges[a].add(b)
        group_edges.setdefault(b, set())
    group_loops = loops(dict(group_edges))
    module_loops = loops(edges)
    wrong = breaks(edges, vocabulary)
    print(f"\nmodule loops: {len(module_loops)}")
    for component in module_loops:
        print("  " + " <-> ".join(component))
    print(f"group loops: {len(group_loops)}")
    for component in group_loops:
        print("  " + " <-> ".join(component))
    print(f"layer breaks: {len(wrong)}")
    for line in wrong:
        print("  " + line)
    if args.modules:
        print("\nmodules:")
        for source in sorted(edges):
            print(f"  {source} -> {', '.join(sorted(edges[source])) or '-'}")
    return 1 if args.check and (module_loops or group_loops or wrong) else 0


if __name__ == "__main__":
    sys.exit(main())
