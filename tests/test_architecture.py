"""The shape ARCHITECTURE.md asks for, checked: one package per format on one kit (a format's rules
and service import no discord; no format imports another), features beside the formats, no import
circle between the bot's modules (imports inside functions and for type checking included), and thin cogs (none over 300 lines).

The import directions (docs/development.md, "Layers"), checked on every import of a file, those
inside functions included:
- `bot.cards` and `bot.store` import nothing of the bot above them;
- the kit (`bot.kit`) imports no feature, no format, nothing of the server's commands nor the web;
- a feature (`bot.features.<name>`) imports the kit, `bot.cards`, `bot.store`, other features and the
  web core's helpers, never a format, the server's commands, the app or the web's pages and app;
- a format (`bot.games.<name>`) may import the kit and the features, never another format;
- the web core (`bot.web`) imports no format and no server command."""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"
MAX_COG_LINES = 300


def module_name(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's syntax tree (`ast.walk`), parsed once per content: the tests here
    read the same 200-odd files again and again."""
    return _walked(path.read_text())


@functools.cache
def _walked(text: str) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(ast.parse(text)))


def import_graph() -> dict[str, set[str]]:
    """Module -> the bot modules it imports anywhere: at its top level, for type checking, or inside
    a function (one that runs later can't break the import, but it is a circle all the same: the two
    modules can't be understood, changed or tested apart)."""
    modules = {module_name(p): p for p in BOT.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in nodes(path):
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


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Every group of modules that import each other, directly or not (the graph's strongly
    connected components of more than one module)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in graph[module]:
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group = set(stack[stack.index(module):])
            del stack[stack.index(module):]
            if len(group) > 1:
                found.append(group)

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_no_import_circle():
    assert find_circle(import_graph()) is None


def test_no_group_of_modules_imports_each_other():
    assert circles(import_graph()) == []


def test_the_checker_counts_imports_inside_functions(tmp_path, monkeypatch):
    package = tmp_path / "bot"
    package.mkdir()
    (package / "a.py").write_text("from bot import b\n")
    (package / "b.py").write_text("def later():\n    from bot import a\n")
    monkeypatch.setattr(sys.modules[__name__], "BOT", package)
    assert circles(import_graph()) == [{"bot.a", "bot.b"}]
    assert {"bot.a"} <= imports_of(package / "b.py")


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
    for function in nodes(path):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.update(t for alias in node.names if (t := f"{node.module}.{alias.name}") in modules)
                    found.add(node.module)
    return found & modules


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (also inside functions)."""
    found: set[str] = set()
    for node in nodes(path):
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
    return "service" in relative[1:-1] or stem in {"rules", "service", "models", "decklists"} or stem.endswith(("_rules", "_service"))


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


def test_goldfish_and_the_draft_meet_only_through_the_drafts_hook():
    """Goldfish has its own package (issue 36, item 3); neither it nor the draft imports the other,
    not even inside a function: Goldfish follows "draft.complete" by name."""
    for package, other in (("draft", "goldfish"), ("goldfish", "draft")):
        assert (BOT / "games" / package / "__init__.py").exists()
        assert reaching(f"games/{package}", (f"bot.games.{other}",)) == set()
    assert 'hooks.Follower("draft.complete"' in (BOT / "games" / "goldfish" / "service.py").read_text()


def reaching(package: str, forbidden: tuple[str, ...]) -> set[tuple[str, str]]:
    """(file, module) of every import in `package` of a module under one of `forbidden`."""
    return {(str(p.relative_to(BOT)), m) for p in (BOT / package).rglob("*.py") for m in imports_of(p)
            if m.startswith(forbidden)}


def test_cards_and_the_store_import_nothing_above_them():
    above = ("bot.kit", "bot.features", "bot.games", "bot.server", "bot.app", "bot.web")
    # The one arrow left up (issue 36, item 6): the cards' names use the kit's pure text helpers.
    assert {m for _, m in reaching("cards", above)} <= {"bot.kit.text", "bot.kit.text.escape",
                                                          "bot.kit.text.clean_name", "bot.kit.text.name_key"}
    assert reaching("store", above) == set()


def test_the_kit_imports_no_feature_no_format_and_no_server_command():
    assert reaching("kit", ("bot.features", "bot.games", "bot.server", "bot.app", "bot.web")) == set()


def test_a_feature_imports_no_format():
    """A feature is below the formats (Turnabout runs the clock, the draft reads the cubes); the
    framework duties every format has (recording results, reading the settings row) are the kit's."""
    assert reaching("features", ("bot.games", "bot.server", "bot.app", "bot.web.pages", "bot.web.app",
                                 "bot.web.server")) == set()
    assert {p.name for p in (BOT / "features").iterdir() if p.is_dir() and p.name != "__pycache__"} >= {
        "clock", "cubes", "leaderboard", "config"}


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
    named = [*BOT.glob("games/*/cog.py"), *BOT.glob("games/*/*_cog.py"), *BOT.glob("features/*/cog.py")]
    return [*named, BOT / "kit" / "sweeper.py", *BOT.glob("server/*.py")]


def test_cogs_stay_thin():
    long = {str(p.relative_to(BOT)): n for p in cog_modules() if (n := len(p.read_text().splitlines())) > MAX_COG_LINES}
    assert long == {}
    assert len(cog_modules()) >= 12


DISCORD_ID_NAME = re.compile(r"(message|msg|channel|thread)s?_?ids?$|^messages$", re.IGNORECASE)


def discord_id_names(source: str) -> set[str]:
    """The names in `source` (variables, attributes, fields, arguments, keywords) that say they hold
    a Discord message or channel id, or the messages something is shown on."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
    return {name for name in names if DISCORD_ID_NAME.search(name)}


def engine_modules() -> list[Path]:
    """Every format's rules engine: its rules.py and any *_rules.py beside it."""
    return [*BOT.glob("games/*/rules.py"), *BOT.glob("games/*/*_rules.py")]


def test_no_rules_engine_holds_a_discord_message_id():
    """Which message shows what is `bot.kit.shown`'s (or a claim's) to know, never an engine's
    (issue 36, item 4): an engine's state is saved on every action, and a message id kept there
    was written by a second transaction and went stale with it."""
    holding = {str(p.relative_to(BOT)): names for p in engine_modules() if (names := discord_id_names(p.read_text()))}
    assert holding == {}
    assert len(engine_modules()) >= 6
    # The check sees the shapes an id took before (Turnabout's `messages` pairs, a field, an argument).
    assert discord_id_names("class G:\n    messages: list\n    lobby_message_id: int\n"
                            "def f(g, channel_id):\n    g.messages.append([channel_id, g.thread_id])\n") == {
        "messages", "lobby_message_id", "channel_id", "thread_id"}
    assert discord_id_names("message = 'a sentence for the user'\nproblem.message\n") == set()
