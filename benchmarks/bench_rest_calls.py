"""Discord REST calls per pick, end to end: the real bot process against the loopback fake Discord.

    python -m benchmarks.bench_rest_calls [--players 8] [--packs 2] [--pack-size 15]

Runs one full draft in `buttons` mode (a random player among those with a pack picks next, by
clicking the first button, one pick at a time) and one in `reactions` mode (every player at once,
as people do: each toggles 🇦 on their one pack message as soon as it shows a new pack, after a
random think time of 0 to 2 × `--think` seconds) and prints the REST calls the bot made per pick,
by kind. The bot runs with its default `PICK_CONFIRM_GRACE` (2 s). "Rate-limited" counts every call
but the interaction callbacks (Discord exempts those from the bot's global limit of 50 requests/s).
Aims: buttons ≤ 0.5 rate-limited calls per pick, reactions ≤ 2.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.conftest import WORLD, build_world  # noqa: E402
from tests.e2e.drivers.draft import join_all, live_reaction_packs, pack_title, start_lobby, toggle_letter  # noqa: E402
from tests.e2e.harness import BotProcess  # noqa: E402
from tests.fake_discord import FakeDiscord  # noqa: E402

REACTION_PUT = re.compile(r"/reactions/.+/@me$")
NOT_RATE_LIMITED = ("interaction callback",)
BOT_ENV = {"PICK_CONFIRM_GRACE": "2"}  # the bot's default (the test harness sets 0)


def kind(call) -> str:
    if call.method == "PUT" and REACTION_PUT.search(call.path):
        return "add reaction"
    if call.method == "DELETE" and "/reactions/" in call.path:
        return "remove reaction"
    if "/callback" in call.path:
        return "interaction callback"
    if call.method == "POST" and call.path.endswith("/messages"):
        if call.path == f"/channels/{WORLD.channel}/messages":
            return "channel post (once per draft)"
        if call.files:
            return "final pool DM (once per player)"
        return "pack DM" if call.json and call.json.get("embeds") else "'next pack is ready' notice"
    if call.method == "PATCH" and call.path.startswith(f"/channels/{WORLD.channel}/"):
        return "lobby redrawn (once per draft)"
    if call.method == "PATCH" and any("-pool." in f.get("filename", "") for f in call.files or []):
        return "final pool on the pack message (once per player)"
    if call.method == "PATCH":
        return "edit message"
    if call.path == "/users/@me/channels":
        return "open DM channel"
    return f"{call.method} {call.route}"


async def run_draft(mode: str, players: list[int], packs: int, pack_size: int, *, think: float = 0.0,
                    quiet: bool = False) -> dict:
    fake = FakeDiscord()
    await fake.start()
    build_world(fake)
    with tempfile.TemporaryDirectory() as tmp:
        bot = BotProcess(fake, f"sqlite+aiosqlite:///{tmp}/bench.sqlite3", Path(tmp), env=BOT_ENV)
        await bot.start()
        try:
            pod_id, lobby = await start_lobby(
                fake, WORLD, packs=packs, pack_size=pack_size, seats=len(players), pick_mode=mode
            )
            await join_all(fake, lobby, pod_id, players[:-1])
            since = len(fake.rest_log)
            await fake.click(players[-1], lobby, f"draft:lobby:{pod_id}:join")  # fills the lobby: begins
            total = len(players) * packs * pack_size
            started = time.perf_counter()
            if mode == "buttons":
                restart = await _one_at_a_time(fake, players, total)
            else:
                restart = await _all_at_once(fake, bot, players, total, think, quiet=quiet)
            elapsed = time.perf_counter() - started
            await fake.wait_for(lambda: any("is complete" in m.get("content", "") for m in fake.messages(WORLD.channel)))
            calls = [c for i, c in enumerate(fake.rest_log) if i >= since and not restart[0] <= i < restart[1]]
        except BaseException:
            print(f"the bot's log, last lines:\n{bot.log_tail(150)}", file=sys.stderr)
            raise
        finally:
            await bot.stop()
            await fake.stop()
    by_kind = Counter(kind(c) for c in calls)
    once = sum(n for k, n in by_kind.items() if "once" in k) + by_kind.get("open DM channel", 0)
    per_pick = len(calls) - by_kind.get("add reaction", 0) - once
    limited = len(calls) - sum(n for k, n in by_kind.items() if k in NOT_RATE_LIMITED)
    figures = {"mode": mode, "picks": total, "rate_limited": limited / total, "by_kind": dict(by_kind),
               "restart_reads": restart[2] if len(restart) > 2 else None, "players": len(players)}
    if quiet:
        return figures
    print(f"\n== {mode} mode: {total} picks by {len(players)} players in {elapsed:.1f} s ==")
    print(f"  all REST calls per pick                          : {len(calls) / total:.2f}")
    print(f"  excluding reactions                              : {(len(calls) - by_kind.get('add reaction', 0)) / total:.2f}")
    print(f"  excluding reactions and once-per-draft/player    : {per_pick / total:.2f}")
    print(f"  RATE-LIMITED calls per pick (all but callbacks)  : {limited / total:.2f}")
    for name, count in sorted(by_kind.items(), key=lambda item: -item[1]):
        print(f"  {name:<49}: {count} ({count / total:.2f}/pick)")
    return figures


async def _one_at_a_time(fake: FakeDiscord, players: list[int], total: int) -> tuple[int, int]:
    """Buttons: a random player among those with a pack picks next, waiting for the answer."""
    rng = random.Random(1)
    for _ in range(total):
        ready = await fake.wait_for(lambda: _ready(fake, players, "buttons"), timeout=30, what="a pack")
        player, message = rng.choice(ready)  # whoever happens to look at Discord next
        button = next(c for c in _components(message) if c.get("custom_id", "").startswith("dp:"))
        await fake.click(player, message, button["custom_id"])
    return 0, 0


async def _all_at_once(fake: FakeDiscord, bot: BotProcess, players: list[int], total: int, think: float,
                       *, quiet: bool) -> tuple[int, int, int]:
    """Reactions: every player picks as soon as their pack message shows a pack they have not
    picked from, after a think time; half way through, everyone stops, the bot restarts, and they
    go on."""
    rng = random.Random(1)
    each = total // len(players)
    made: dict[int, list[tuple[str, str]]] = {p: [] for p in players}  # (message id, "Pack 1, pick 3") picked
    halfway, go = asyncio.Event(), asyncio.Event()
    go.set()

    def fresh_pack(player: int) -> dict | None:
        for message in live_reaction_packs(fake, player):
            if not made[player] or made[player][-1] != (message["id"], pack_title(message)):
                return message
        return None

    async def player_loop(player: int) -> None:
        while len(made[player]) < each:
            message = await fake.wait_for(lambda: fresh_pack(player), timeout=120, what=f"{player}'s next pack")
            if think:
                await asyncio.sleep(rng.uniform(0, 2 * think))  # a person reading the pack
            if not go.is_set():  # the bot is restarting: look again afterwards
                await go.wait()
                continue
            made[player].append((message["id"], pack_title(message)))
            if sum(len(m) for m in made.values()) == total // 2:
                go.clear()
                halfway.set()
            await toggle_letter(fake, player, message, 0)

    def confirmed() -> bool:  # every pick so far answered: its message no longer offers the pack picked from
        return all(not _offers(fake.message(mid), title) for m in made.values() for mid, title in m[-1:])

    async def restart_halfway() -> tuple[int, int, int]:
        await halfway.wait()
        try:
            await fake.wait_for(confirmed, timeout=60, what="the picks before the restart confirmed")
        except AssertionError:
            for player, picked in made.items():
                mid, title = picked[-1]
                shown = fake.message(mid)["embeds"][0]
                print(f"  {player}: last pick {title}; its message: {shown.get('title')} / "
                      f"{shown.get('description', '')[:60]!r} / {shown.get('fields')} / {shown.get('footer')}",
                      file=sys.stderr)
            raise
        window = await _restart(fake, bot, players, quiet=quiet)
        go.set()
        return window

    restarter = asyncio.create_task(restart_halfway())
    await asyncio.gather(*(player_loop(p) for p in players))
    return await restarter


async def _restart(fake: FakeDiscord, bot: BotProcess, players: list[int], *, quiet: bool = False) -> tuple[int, int, int]:
    """Restart the bot mid-draft (issue 16): it reads each player's pack message once. Returns the
    range of REST calls the restart made (left out of the per-pick figures) and the reads made."""
    pending = len(players)  # every player's one pack message: showing a pack, or "waiting"
    begin = len(fake.rest_log)
    started = time.perf_counter()
    await bot.restart()

    def reads() -> int:
        return sum(1 for c in fake.rest_log[begin:] if c.method == "GET" and (c.route or "").endswith("/{message_id}"))

    try:
        await fake.wait_for(lambda: reads() >= pending, timeout=90, what="the startup reads")
    except AssertionError:
        print(f"   (only {reads()} of {pending} pending pack messages read within 90 s)")
    if not quiet:
        print(f"\n   restart mid-draft: {reads()} message reads for {pending} players' pack messages "
              f"({reads() / max(pending, 1):.2f} each), done {time.perf_counter() - started:.1f} s after the kill; "
              "paced at 20 reads/s, 1,000 active 8-seat pods (8,000 pack messages) take ≤ 400 s")
    return begin, len(fake.rest_log), reads()


def _offers(message: dict, title: str) -> bool:
    """Does the message still offer the pack "Pack 1, pick 3" to pick from by reaction?"""
    embed = (message.get("embeds") or [{}])[0]
    footer = (embed.get("footer") or {}).get("text", "")
    shown = re.search(r"Pack \d+, pick \d+", embed.get("title", ""))
    return shown is not None and shown.group(0) == title and footer.startswith("React with a letter")


def _components(message: dict) -> list[dict]:
    from tests.fake_discord.models import flatten_components

    return flatten_components(message.get("components"))


def _ready(fake: FakeDiscord, players: list[int], mode: str) -> list[tuple[int, dict]]:
    out = []
    for player in players:
        for message in reversed(fake.dms(player)):
            embeds = str(message.get("embeds"))
            if "Pack" not in embeds:
                continue
            if mode == "buttons" and not _components(message):
                continue
            if mode == "reactions" and message not in live_reaction_packs(fake, player):
                continue
            out.append((player, message))
            break
    return out


async def run(players: int = 8, packs: int = 2, pack_size: int = 15, *, think: float = 0.0,
              quiet: bool = False) -> dict[str, dict]:
    """{mode: figures} for a draft in each pick mode."""
    chosen = WORLD.players[:players]
    return {mode: await run_draft(mode, chosen, packs, pack_size, think=think, quiet=quiet)
            for mode in ("buttons", "reactions")}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--packs", type=int, default=2)
    parser.add_argument("--pack-size", type=int, default=15)
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a player looks at a pack before reacting (reactions mode)")
    args = parser.parse_args()
    await run(args.players, args.packs, args.pack_size, think=args.think)


if __name__ == "__main__":
    asyncio.run(main())
