"""A hook a format declares, followed by another by its name (`bot.kit.hooks`)."""

from __future__ import annotations

import pytest

from bot.kit import hooks
from bot.kit.errors import UserError


@pytest.fixture
def isolated(monkeypatch):
    monkeypatch.setattr(hooks, "_declared", {})
    monkeypatch.setattr(hooks, "_followers", {})
    monkeypatch.setattr(hooks, "_options", {})


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


def test_a_follower_settles_the_options_the_firing_table_offers(isolated):
    done = hooks.declare("test.done")

    async def nothing(session, finished):
        pass

    def settle(chosen):
        if not chosen.get("fish"):
            return None
        if chosen.get("size") not in ("s", "l", None):
            raise UserError("No such size.")
        return {"size": chosen.get("size") or "s"}

    hooks.follow("test.done", nothing, options=hooks.Options(settle, {"size": (("s", "small"), ("l", "large"))}))
    hooks.follow("test.done", nothing, options=hooks.Options(settle, {"size": (("s", "small"), ("l", "large"))}))
    assert hooks.settle(done, {}) is None
    assert hooks.settle(done, {"fish": True}) == {"size": "s"}
    assert hooks.settle(done, {"fish": True, "size": "l"}) == {"size": "l"}
    with pytest.raises(UserError, match="No such size"):
        hooks.settle(done, {"fish": True, "size": "xl"})
    assert hooks.choices(done, "size") == (("s", "small"), ("l", "large"))
    assert hooks.choices(done, "colour") == ()
    assert hooks.settle(hooks.declare("test.unfollowed"), {"fish": True}) is None


def test_the_draft_declares_its_completion_and_goldfish_follows_it_with_its_options():
    from bot.games.draft import service as drafts
    from bot.games.goldfish import service as goldfish  # noqa: F401 - follows the draft's hook

    assert hooks.check() == []
    assert "draft.complete" in hooks._declared and hooks._followers["draft.complete"]
    assert [value for value, _ in hooks.choices(drafts.COMPLETE, "method")] == ["sum", "max", "product"]
    assert [value for value, _ in hooks.choices(drafts.COMPLETE, "play_order")] == ["first", "second", "flip"]
    assert hooks.settle(drafts.COMPLETE, {"turns": 5}) == {"turns": 5, "method": "sum", "play_order": "first"}
    assert hooks.settle(drafts.COMPLETE, {"goldfish": False, "cube": {"name": "Goldfish", "shipped": True}}) is None
