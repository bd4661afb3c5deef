"""The shape ARCHITECTURE.md asks for, checked: no import circle between the bot's modules (at
import time), and thin cogs (none over 300 lines)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"
MAX_COG_LINES = 300


def module_name(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the bot modules it imports at its top level (imports inside functions run later
    and can't make a circle at import time)."""
    modules = {module_name(p): p for p in BOT.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    graph[name].add(target if target in modules else node.module)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names)
        graph[name] &= modules.keys()
    return graph


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    visiting: list[str] = []
    done: set[str] = set()

    def visit(module: str) -> list[str] | None:
        if module in visiting:
            return [*visiting[visiting.index(module):], module]
        if module in done:
            return None
        visiting.append(module)
        for target in sorted(graph[module]):
            if (circle := visit(target)) is not None:
                return circle
        visiting.pop()
        done.add(module)
        return None

    return next((circle for module in sorted(graph) if (circle := visit(module))), None)


def test_no_import_circle():
    assert find_circle(import_graph()) is None


def test_the_checker_finds_a_circle():
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_cogs_stay_thin():
    long = {p.name: n for p in (BOT / "cogs").glob("*.py") if (n := len(p.read_text().splitlines())) > MAX_COG_LINES}
    assert long == {}
