"""A hook a format declares, followed by another by its name (`bot.kit.hooks`)."""

from __future__ import annotations

import pytest

from bot.kit import hooks


@pytest.fixture
def isolated(monkeypatch):
    monkeypatch.setattr(hooks, "_declared", {})
    monkeypatch.setattr(hooks, "_followers", {})


async def test_followers_run_in_order_once_each_with_what_finished(isolated):
    done = hooks.declare("test.done")
    seen = []

    async def first(session, finished):
        seen.append(("first", session, finished.table_id, finished.options["turns"]))

    async def second(session, finished):
        seen.append(("second", session, finished.table_id, finished.options["turns"]))

    hooks.follow("test.done", first)
    hooks.follow("test.done", second)
    hooks.follow("test.done", first)  # a module imported twice registers once
    await hooks.fire("session", done, hooks.Finished("test", 7, 1, 2, 3, "Test #7", {"turns": 5}))
    assert seen == [("first", "session", 7, 5), ("second", "session", 7, 5)]


async def test_a_hook_nobody_follows_fires_nothing_and_one_nobody_declared_is_found(isolated):
    await hooks.fire(None, hooks.declare("test.quiet"), hooks.Finished("test", 1, 1, 1, 1, "Test #1"))

    async def lost(session, finished):
        raise AssertionError("never fired")

    hooks.follow("test.misspelt", lost)
    assert hooks.check() == ["test.misspelt"]
    with pytest.raises(ValueError, match="twice"):
        hooks.declare("test.quiet")


def test_the_draft_declares_its_completion_and_goldfish_follows_it():
    from bot.games.draft import service  # noqa: F401 - the draft's hooks and their followers

    assert hooks.check() == []
    assert "draft.complete" in hooks._declared and hooks._followers["draft.complete"]
