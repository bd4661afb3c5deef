"""A hook a format declares, followed by another by its name (`bot.kit.hooks`): both declared in
their `Format`s, connected when the bot starts, never registered at import."""

from __future__ import annotations

import pytest

from bot.kit import hooks
from bot.kit.errors import UserError


async def test_followers_run_in_order_once_each_with_what_finished():
    done = hooks.Hook("test.done")
    seen = []

    async def first(session, finished):
        seen.append(("first", session, finished.table_id, finished.options["turns"]))

    async def second(session, finished):
        seen.append(("second", session, finished.table_id, finished.options["turns"]))

    following = [hooks.Follower("test.done", first), hooks.Follower("test.done", second)]
    await hooks.fire("session", done, hooks.Finished("test", 7, 1, 2, 3, "Test #7", {"turns": 5}))
    assert seen == []  # not connected yet: nothing follows it
    assert hooks.connect([done], [*following, following[0]]) == []
    assert hooks.connect([done], following) == []  # connecting again (a second start) is connecting once
    await hooks.fire("session", done, hooks.Finished("test", 7, 1, 2, 3, "Test #7", {"turns": 5}))
    assert seen == [("first", "session", 7, 5), ("second", "session", 7, 5)]


async def test_a_hook_nobody_follows_fires_nothing_and_one_nobody_declared_is_found():
    quiet = hooks.Hook("test.quiet")

    async def lost(session, finished):
        raise AssertionError("never fired")

    problems = hooks.connect([quiet, hooks.Hook("test.quiet")], [hooks.Follower("test.misspelt", lost)])
    assert problems == ["the hook 'test.quiet' is declared twice",
                        "handlers follow the hook 'test.misspelt', which no format declares"]
    await hooks.fire(None, quiet, hooks.Finished("test", 1, 1, 1, 1, "Test #1"))


def test_a_follower_settles_the_options_the_firing_table_offers():
    done, unfollowed = hooks.Hook("test.done"), hooks.Hook("test.unfollowed")

    async def nothing(session, finished):
        pass

    def settle(chosen):
        if not chosen.get("fish"):
            return None
        if chosen.get("size") not in ("s", "l", None):
            raise UserError("No such size.")
        return {"size": chosen.get("size") or "s"}

    sizes = hooks.Options(settle, {"size": (("s", "small"), ("l", "large"))})
    assert hooks.connect([done, unfollowed], [hooks.Follower("test.done", nothing, options=sizes)] * 2) == []
    assert hooks.settle(done, {}) is None
    assert hooks.settle(done, {"fish": True}) == {"size": "s"}
    assert hooks.settle(done, {"fish": True, "size": "l"}) == {"size": "l"}
    with pytest.raises(UserError, match="No such size"):
        hooks.settle(done, {"fish": True, "size": "xl"})
    assert hooks.choices(done, "size") == (("s", "small"), ("l", "large"))
    assert hooks.choices(done, "colour") == ()
    assert hooks.settle(unfollowed, {"fish": True}) is None


def test_the_draft_declares_its_completion_and_goldfish_and_pods_follow_it_with_their_options():
    import bot.games
    from bot.games.draft import service as drafts
    from bot.games.goldfish import service as goldfish
    from bot.games.pod_matches import service as pods
    from bot.kit.formats import connect_hooks

    assert connect_hooks(bot.games.formats()) == []
    assert [f.handler for f in drafts.COMPLETE.followers] == [goldfish.open_event_for_pod, pods.open_for_draft]
    assert [value for value, _ in hooks.choices(drafts.COMPLETE, "method")] == ["sum", "max", "product"]
    assert [value for value, _ in hooks.choices(drafts.COMPLETE, "play_order")] == ["first", "second", "flip"]
    assert hooks.settle(drafts.COMPLETE, {"turns": 5}) == {"turns": 5, "method": "sum", "play_order": "first"}
    assert hooks.settle(drafts.COMPLETE, {"goldfish": False, "cube": {"name": "Goldfish", "shipped": True}}) is None
