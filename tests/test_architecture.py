"""The shape ARCHITECTURE.md asks for, checked: one package per format on one kit (a format's rules
and service import no discord; no format imports another; the kit imports no format and nothing of
the server's commands), no import circle between the bot's modules (function-level imports
included), and thin cogs
(none over 300 lines)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"
MAX_COG_LINES = 300


def module_name(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the bot modules it imports anywhere: at its top level, for type checking, or inside
    a function (one that runs later can't break the import, but it is a circle all the same: the two
    modules can't be understood, changed or tested apart)."""
    modules = {module_name(p): p for p in BOT.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
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


def test_the_graph_counts_imports_inside_functions():
    graph = import_graph()
    assert "bot.kit.outbox" in graph["bot.kit.delivery"]
    # The draft's `state` once imported its lobby inside a function: such an import is an arrow too.
    inside = function_level_imports(BOT / "kit" / "paginate.py")
    assert "bot.kit.reporting" in inside and inside <= graph["bot.kit.paginate"]


def function_level_imports(path: Path) -> set[str]:
    modules = {module_name(p) for p in BOT.rglob("*.py")}
    found = set()
    for function in ast.walk(ast.parse(path.read_text())):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.update(t for alias in node.names if (t := f"{node.module}.{alias.name}") in modules)
                    found.add(node.module)
    return found & modules


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (also inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def game_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["bot", "games"] and len(parts) > 2 else None


def is_discord_free(path: Path) -> bool:
    """A format's rules engine, its use cases and its tables: pure of Discord."""
    relative = path.relative_to(BOT / "games").parts
    stem = path.stem
    return "service" in relative[1:-1] or stem in {"rules", "service", "models"} or stem.endswith(("_rules", "_service"))


def test_rules_and_services_import_no_discord():
    leaks = {str(p.relative_to(BOT)) for p in (BOT / "games").rglob("*.py") if is_discord_free(p)
             and any(m == "discord" or m.startswith("discord.") for m in imports_of(p))}
    assert leaks == set()
    assert is_discord_free(BOT / "games" / "draft" / "service" / "picking.py")
    assert not is_discord_free(BOT / "games" / "draft" / "ui.py")


def test_no_format_imports_another():
    crossing = {(str(p.relative_to(BOT)), m) for p in (BOT / "games").rglob("*.py")
                for m in imports_of(p) if game_of(m) not in (None, game_of(module_name(p)))}
    assert crossing == set()


def test_the_kit_imports_no_format_and_no_server_command():
    upward = {(str(p.relative_to(BOT)), m) for p in (BOT / "kit").rglob("*.py")
              for m in imports_of(p) if m.startswith(("bot.games", "bot.server", "bot.app", "bot.web"))}
    assert upward == set()


def test_the_web_pages_import_no_format_and_no_discord_client():
    """bot/web finds the formats' pages through `bot.games`'s discovery, never by a format's name;
    it renders pages, so it needs no Discord client (only its link buttons build a discord.py item)."""
    reaching = {(str(p.relative_to(BOT)), m) for p in (BOT / "web").rglob("*.py") for m in imports_of(p)
                if game_of(m) is not None or m.startswith(("bot.server", "bot.app"))
                or (m.split(".")[0] == "discord" and p.name != "buttons.py")}
    assert reaching == set()


def cog_modules() -> list[Path]:
    """Every module that is a cog or part of one: a package's cog.py and *_cog.py, the kit's and
    the server's cogs."""
    named = [*BOT.glob("games/*/cog.py"), *BOT.glob("games/*/*_cog.py"), *BOT.glob("kit/clock/cog.py")]
    return [*named, BOT / "kit" / "sweeper.py", *BOT.glob("server/*.py")]


def test_cogs_stay_thin():
    long = {str(p.relative_to(BOT)): n for p in cog_modules() if (n := len(p.read_text().splitlines())) > MAX_COG_LINES}
    assert long == {}
    assert len(cog_modules()) >= 12
