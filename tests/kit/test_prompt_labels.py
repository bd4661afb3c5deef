"""Ask-first prompts name their buttons by what they do (issue 35 item 8): every `confirm_then_act`
names the button that acts (`label`) and the one that leaves things as they are (`keep`), and never
with the bare words of a yes/no dialog ("Confirm" / "Cancel" on a question about cancelling)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
BARE = {"Confirm", "Cancel", "OK", "Yes", "No"}
# Goldfish is moving to a package of its own (issue 35): its two prompts are named there.
NOT_YET: set[str] = set()


def prompt_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for path in BOT.rglob("*.py"):
        relative = str(path.relative_to(BOT))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "confirm_then_act":
                calls.append((f"{relative}:{node.lineno}", node))
    return calls


def test_every_prompt_names_both_buttons_by_what_they_do():
    calls = prompt_calls()
    assert len(calls) >= 15
    for where, call in calls:
        if where.split(":")[0] in NOT_YET:
            continue
        given = {keyword.arg: keyword.value for keyword in call.keywords}
        assert {"label", "keep"} <= set(given), f"{where}: name both buttons (label=…, keep=…)"
        for name in ("label", "keep"):
            value = given[name]
            if isinstance(value, ast.Constant):
                assert value.value not in BARE, f"{where}: {name}={value.value!r} says nothing of what it does"
