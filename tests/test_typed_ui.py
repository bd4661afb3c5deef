"""A UI renders the engine's own events and typed payloads (`bot.kit.events`), matched by class:
it never picks its text by an event-name string nor reads a document by key (`e["type"]`,
`payload.get("what")`). Checked on the source of every UI module; the formats not converted to the
kit's typed events yet are listed, and leave the list when they are."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"
# Remove your format's UI from here when it renders typed events (the test says when it does).
NOT_TYPED_YET: set[str] = set()


def ui_modules() -> list[Path]:
    return sorted({*BOT.glob("games/*/ui.py"), *BOT.glob("games/*/*_ui.py"), *BOT.glob("kit/**/ui.py"), *BOT.glob("features/*/ui.py")})


def reads_by_key(path: Path) -> list[int]:
    """Lines that read a document by a string key: `x["key"]` or `x.get("key")`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            found.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append(node.lineno)
    return sorted(found)


def test_ui_modules_read_no_document_by_key():
    typed = {str(p.relative_to(BOT)): lines for p in ui_modules()
             if str(p.relative_to(BOT)) not in NOT_TYPED_YET and (lines := reads_by_key(p))}
    assert typed == {}
    assert {"games/turnabout/ui.py", "features/clock/ui.py"} <= {str(p.relative_to(BOT)) for p in ui_modules()}


def test_the_list_of_formats_not_typed_yet_only_shrinks():
    converted = {name for name in NOT_TYPED_YET if not (BOT / name).exists() or not reads_by_key(BOT / name)}
    assert converted == set(), "these UIs read no document by key any more: remove them from NOT_TYPED_YET"


def test_the_check_finds_reads_by_key(tmp_path):
    module = tmp_path / "ui.py"
    module.write_text('def f(e):\n    if e["type"] == "RoundPaired":\n        return e.get("round")\n')
    assert reads_by_key(module) == [2, 3]
