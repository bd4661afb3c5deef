"""Reaction picks on one reused pack message per player, and reactions made while the bot
restarts (issues 11 and 16), end to end through the fake Discord.

A player's pack message is edited to show each next pack; the bot's letters and the player's old
highlights stay on it, so a toggle of a letter (added or removed) is the pick. At startup the bot
reads each pending pack message once and counts the one letter that changed while it was away,
or asks when several did.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter

import pytest

from bot.games.draft import ui
from tests.e2e.drivers.common import embed_text
from tests.e2e.drivers.draft import (
    age_last_picks,
    age_waits,
    cards_shown,
    live_reaction_packs,
    pack_title,
    pick_by_reaction,
    stored_picks,
    toggle_letter,
)
from tests.e2e.test_draft_lifecycle import begin_pod, players_with_a_pack, wait_complete

pytestmark = pytest.mark.e2e


@pytest.fixture
def bot_env() -> dict[str, str]:
    return {"SWEEP_INTERVAL": "0.2"}  # the pick timer's sweep acts quickly once time is moved on

REACTION_PUT = r"/reactions/.+/@me$"


def pack_messages(fake, user: int) -> list[dict]:
    """Every DM the bot sent the user that shows a pack, "you took …" or (at the end) their pool:
    the notices are plain text."""
    return [m for m in fake.dms(user) if m.get("embeds")]


def notices(fake, user: int) -> list[dict]:
    return [m for m in fake.dms(user) if "your next pack" in (m.get("content") or "")]


def rate_limited(fake, since: int) -> list:
    """The REST calls the bot made since `since` that count against Discord's global limit."""
    return [c for c in fake.rest_log[since:] if "/callback" not in c.path and "/interactions/" not in c.path]


async def settle(fake, bot, pod_id: int, players: list[int]) -> None:
    """Wait until every player the database says has a pack sees it on their pack message."""
    expected = await players_with_a_pack(bot, pod_id, players)
    await fake.wait_for(lambda: {p for p in players if live_reaction_packs(fake, p)} == expected,
                        what=f"packs shown to {sorted(expected)}")


async def picks_of(bot) -> list[dict]:
    return (await stored_picks(bot))["picks"]


async def test_a_reaction_draft_uses_one_message_per_player_and_about_two_calls_per_pick(fake, bot, world):
    players = world.players[:4]
    packs, size = 2, 5
    total = len(players) * packs * size
    start = len(fake.rest_log)
    pod_id, _ = await begin_pod(fake, world, players, bot=bot, packs=packs, pack_size=size, pick_mode="reactions")
    await settle(fake, bot, pod_id, players)
    for player in players:  # the letters come in the background
        message = live_reaction_packs(fake, player)[0]
        assert not message.get("components")  # reactions only
        await fake.wait_for(lambda m=message: len(fake.reactions(m["id"])) == size, what="the bot's letters")
    since = len(fake.rest_log)
    rng = random.Random(7)
    mine: dict[int, list[str]] = {p: [] for p in players}
    old_highlights = 0
    single_pick_costs = []
    for _ in range(total):
        await settle(fake, bot, pod_id, players)
        player = rng.choice(sorted(p for p in players if live_reaction_packs(fake, p)))
        message = live_reaction_packs(fake, player)[0]
        cards = cards_shown(message)
        highlighted = [i for i in range(len(cards)) if player in fake.reactions(message["id"]).get(ui.regional_indicator(i), set())]
        # Now and then click a letter the player highlighted at an earlier pick: clicking it off picks too.
        index = highlighted[0] if highlighted and rng.random() < 0.5 else rng.randrange(len(cards))
        old_highlights += index in highlighted
        queued = "more pack" in message["embeds"][0]["footer"]["text"]
        before = len(fake.rest_log)
        mine[player].append(await pick_by_reaction(fake, player, message, index))
        if queued:  # the next pack was already waiting: the pick is one edit, nothing else
            dm = f"/channels/{fake.dm_channel_id(player)}/"
            single_pick_costs.append(len([c for c in rate_limited(fake, before) if c.path.startswith(dm)]))
    await wait_complete(fake, world, pod_id)
    calls = rate_limited(fake, since)
    # A pack that reached a player shown "you took …" while they waited: an edit with no "Last pick"
    # (a pick's own edit, or one that took over its held confirmation, shows the pick it confirms).
    waits = len([c for c in calls if c.method == "PATCH" and _shows_a_pack_alone(c.json)])
    kinds = Counter(
        "letter" if c.method == "PUT" and "/reactions/" in c.path
        else "lobby redrawn (once per draft)" if c.method == "PATCH" and c.path.startswith(f"/channels/{world.channel}/")
        else "edit" if c.method == "PATCH"
        else "notice" if c.method == "POST" and c.json and "your next pack" in (c.json.get("content") or "")
        else "other"
        for c in calls
    )
    # The whole draft's bill, from the first pack DM: those DMs and their letters once per player.
    bill = [c for c in rate_limited(fake, start) if c.method in ("PUT", "PATCH")
            or (c.method == "POST" and "/messages" in c.path and c.path != f"/channels/{world.channel}/messages"
                and not c.files)]
    print(f"\nreaction mode: {total} picks; {waits} times a pack reached a waiting player; during the picks "
          f"{dict(kinds)}; whole draft {len(bill) / total:.2f} rate-limited calls per pick "
          f"(letters and first pack DMs included; a pick is 1 edit, a pack reaching a waiting player 1 edit, and no "
          f"notice: every player picked within the minute)")

    assert old_highlights >= 3
    assert [len(pack_messages(fake, p)) for p in players] == [1] * len(players)  # one reused message each
    assert single_pick_costs and set(single_pick_costs) == {1}
    # A pick is an edit, a wait an edit (no notice: the players are watching); at the end each pack message turns into the
    # pool (for the player whose pick ended the draft, that pick's own edit).
    assert waits > 0 and kinds["edit"] == total + waits + len(players) - 1 and kinds["notice"] == 0
    assert sum(len(notices(fake, p)) for p in players) == 0
    assert kinds["letter"] == 0  # every letter was on the message before the first pick: none re-added
    assert not [c for c in calls if c.method == "DELETE"]
    log = await picks_of(bot)
    assert {e["source"] for e in log} == {"reaction"}
    assert {u: [e["card"] for e in log if e["user_id"] == u] for u in players} == mine


def _shows_a_pack_alone(body) -> bool:
    embeds = (body or {}).get("embeds") or []
    return bool(embeds) and (embeds[0].get("footer") or {}).get("text", "").startswith("React with a letter") and not [
        f for f in embeds[0].get("fields") or [] if f.get("name") == "Last pick"]


async def test_an_old_highlight_toggled_off_picks_and_a_waiting_message_refuses(fake, bot, world):
    p0, p1 = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [p0, p1], bot=bot, packs=1, pack_size=3, pick_mode="reactions")
    await settle(fake, bot, pod_id, [p0, p1])
    message = live_reaction_packs(fake, p1)[0]
    await fake.wait_for(lambda: len(fake.reactions(message["id"])) == 3, what="letters")
    first = await pick_by_reaction(fake, p1, message, 0)  # adds 🇦: p1 now waits
    assert "Waiting for the next pack" in fake.message(message["id"])["embeds"][0]["footer"]["text"]
    # 🇦 stays highlighted (a bot cannot remove it); clicking it off now refers to no pack: refused.
    await toggle_letter(fake, p1, message, 0)
    waiting = f"Already picked: that pack has moved on. You have no pack right now: you are waiting on <@{p0}>."
    await fake.wait_for(lambda: any(m.get("content") == waiting for m in fake.dms(p1)), what="already picked")
    assert len(await picks_of(bot)) == 1
    await toggle_letter(fake, p1, message, 0)  # on again: still no pack on the message
    await fake.wait_for(lambda: sum("Already picked" in (m.get("content") or "") for m in fake.dms(p1)) == 2,
                        what="already picked twice")
    # p1 steps away; p0 picks: the pack reaches p1, who was waiting: the same message shows it, plus a notice.
    await age_last_picks(bot, pod_id, 120, users=[p1])
    await pick_by_reaction(fake, p0, live_reaction_packs(fake, p0)[0], 1)
    await fake.wait_for(lambda: live_reaction_packs(fake, p1) and notices(fake, p1), what="p1's next pack")
    shown = fake.message(message["id"])
    assert live_reaction_packs(fake, p1) == [shown] and fake.pinged_users(notices(fake, p1)[0]) == set()
    assert p1 in fake.reactions(message["id"])[ui.regional_indicator(0)]  # the old highlight, count 2
    second = await pick_by_reaction(fake, p1, shown, 0)  # clicking it off is the pick
    assert p1 not in fake.reactions(message["id"]).get(ui.regional_indicator(0), set())
    assert [(e["user_id"], e["card"]) for e in await picks_of(bot) if e["user_id"] == p1] == [
        (p1, first), (p1, second)
    ]


def _sqlite_path(bot) -> str:
    return bot.database_url.split("///", 1)[1]


async def test_reactions_made_while_the_bot_restarts_still_count(fake, bot, world):
    """Issue 16: a reaction whose event died with the bot, one made while it was down, and two
    letters changed while it was down (asked about, not guessed)."""
    p0, p1, p2 = world.players[:3]
    players = [p0, p1, p2]
    pod_id, _ = await begin_pod(fake, world, players, bot=bot, packs=1, pack_size=6, pick_mode="reactions")
    await settle(fake, bot, pod_id, players)
    for p in players:
        m = live_reaction_packs(fake, p)[0]
        await fake.wait_for(lambda m=m: len(fake.reactions(m["id"])) == 6, what="letters")

    # 1. p0 reacts; the bot gets the event but is killed before its pick commits (the database is
    #    held by the test, so the handler is stuck waiting for it).
    message = live_reaction_packs(fake, p0)[0]
    card = cards_shown(message)[2]
    title = pack_title(message)
    lock = sqlite3.connect(_sqlite_path(bot), isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        frames = len(fake.gateway_log)
        await toggle_letter(fake, p0, message, 2)
        await fake.wait_for(
            lambda: any(d == "out" and t == "MESSAGE_REACTION_ADD" for _, d, _, t in fake.gateway_log[frames:]),
            what="the reaction event sent to the bot",
        )
        await bot.kill()
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert f"{title}: you took" not in embed_text(fake.message(message["id"]))

    # 2. While the bot is down, p1 reacts once, and p2 highlights two letters.
    m1, m2 = live_reaction_packs(fake, p1)[0], live_reaction_packs(fake, p2)[0]
    card1, title1 = cards_shown(m1)[4], pack_title(m1)
    await toggle_letter(fake, p1, m1, 4)
    await toggle_letter(fake, p2, m2, 0)
    await toggle_letter(fake, p2, m2, 3)
    reads = len(fake.rest_log)
    await bot.start()

    # A restart reads every live pack message first: on a loaded machine that takes more than the usual 10 s.
    await fake.wait_for(lambda: f"{title}: you took" in embed_text(fake.message(message["id"])), what="p0's pick lands", timeout=30)
    await fake.wait_for(lambda: f"{title1}: you took" in embed_text(fake.message(m1["id"])), what="p1's pick lands", timeout=30)
    await fake.wait_for(lambda: any("can't tell which" in (m.get("content") or "") for m in fake.dms(p2)), what="p2 asked", timeout=30)
    asked = next(m for m in fake.dms(p2) if "can't tell which" in (m.get("content") or ""))
    assert "🇦" in asked["content"] and "🇩" in asked["content"]
    log = await picks_of(bot)
    assert sorted((e["user_id"], e["card"]) for e in log) == sorted([(p0, card), (p1, card1)])
    assert not [e for e in log if e["user_id"] == p2]  # not guessed
    # At most one read per player's pack message, and no per-letter reads.
    gets = [c for c in fake.rest_log[reads:] if c.method == "GET" and c.route and c.route.endswith("/messages/{message_id}")]
    assert len(gets) <= len(players)
    assert not [c for c in fake.rest_log[reads:] if c.method == "GET" and "/reactions/" in c.path]

    # p2 answers by clicking the letter they want once more (off): that is the pick.
    m2 = fake.message(m2["id"])
    wanted = cards_shown(m2)[3]
    assert await pick_by_reaction(fake, p2, m2, 3) == wanted
    assert [e["card"] for e in await picks_of(bot) if e["user_id"] == p2] == [wanted]
    # A later restart finds nothing new: the highlights it saw are on record.
    before = len(await picks_of(bot))
    await bot.restart()
    await settle(fake, bot, pod_id, players)
    assert len(await picks_of(bot)) == before


async def test_a_timed_out_pick_turns_the_same_message_to_the_next_pack(fake, bot, world):
    """The timer picks for p1 (sweep every 0.2 s, time moved on in the database): with a pack
    queued, p1's one message shows it (the "time ran out" note comes as a DM); without one, the
    message says what the bot picked."""
    p0, p1 = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [p0, p1], bot=bot, packs=1, pack_size=4, pick_mode="reactions",
                                pick_timer=1)
    await settle(fake, bot, pod_id, [p0, p1])
    m1 = live_reaction_packs(fake, p1)[0]
    # p0's pick (confirmed once committed) passes p0's pack to p1, who now has two.
    await pick_by_reaction(fake, p0, live_reaction_packs(fake, p0)[0], 0)

    def timed_out_notes() -> int:
        return sum("Time ran out" in (m.get("content") or "") for m in fake.dms(p1))

    await age_waits(bot, pod_id, 61, users=[p1])
    await fake.wait_for(lambda: timed_out_notes() == 1, what="first time-out")
    await fake.wait_for(lambda: live_reaction_packs(fake, p1) == [fake.message(m1["id"])]
                        and pack_title(fake.message(m1["id"])) == "Pack 1, pick 2", what="p1's next pack on the same message")
    assert len(pack_messages(fake, p1)) == 1
    # Again, with nothing queued behind: the message says what the bot picked.
    await age_waits(bot, pod_id, 61, users=[p1])
    await fake.wait_for(lambda: timed_out_notes() == 2, what="second time-out")
    await fake.wait_for(lambda: "time ran out, I picked" in (fake.message(m1["id"]).get("content") or ""),
                        what="the closing text")
    assert not live_reaction_packs(fake, p1)
    sources = [e["source"] for e in await picks_of(bot) if e["user_id"] == p1]
    assert sources == ["timeout", "timeout"]
