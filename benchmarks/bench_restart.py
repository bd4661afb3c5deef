"""A restart with many active pods: the real bot process (`python -m bot`) against the fake Discord.

    python -m benchmarks.bench_restart [--pods 1000] [--watch 15]

Fills a SQLite database with --pods running 8-seat draft pods picked by reactions (copies of one
real pod, as `bench_sweep` makes them). Seats 1-7 of every pod have their pack message in the fake
Discord, on record, with the bot's letters on it; seat 0 waits for a pack whose DM was queued but
not sent when the bot died (a crash just after the pick that passed it). Then it starts the bot
twice, on an empty database and on this one, and measures:

- memory: the process's resident memory with the pods minus without them, per active pod;
- re-sends: the time from starting the process to the first queued pack shown again (the edit of
  that player's pack message), and how many of them went out in the --watch seconds;
- reconciliation (issue 16): pack messages pending a read (one read each at most), the reads made
  in the watch window, their pace, that none was read twice, and the time bound that gives.

`run(...)` returns the figures for the unified command (`python -m benchmarks`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from sqlalchemy import insert, select, update

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_sweep import SEATS, fill, template_pod  # noqa: E402
from bot.games.draft import service as drafts
from bot.games.draft.models import DraftDelivery, DraftPackMessage, DraftPod, DraftSeat
from bot.games.draft.reaction_picks import RECONCILE_PER_SECOND
from bot.games.draft.service import reactions
from bot.games.draft.service.state import GAMES, prompt_for
from bot.games.draft.ui import regional_indicator
from bot.kit import outbox
from bot.store.db import Database  # noqa: E402
from bot.store.migrate import upgrade  # noqa: E402
from bot.store.models import OutboxMessage
from bot.store.types import utcnow  # noqa: E402
from tests.e2e.harness import BotProcess  # noqa: E402
from tests.fake_discord import FakeDiscord  # noqa: E402
from tests.fake_discord.messages import emoji_key  # noqa: E402

READ_ROUTE = "/channels/{channel_id}/messages/{message_id}"


def rss_kib(pid: int) -> tuple[int, int]:
    """(resident, peak resident) KiB of a process, from /proc."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def fill_reaction_pods(db: Database, fake: FakeDiscord, pods: int) -> int:
    """`pods` running reaction pods with their pack messages (in the fake Discord too) and one queued,
    unsent pack DM each. Returns how many pack messages show a pack now."""
    template = await template_pod(db)
    await fill(db, template, pods - 1, 200_000)
    async with db.read() as session:
        model = await GAMES.load(session, template.id, lock=False)
        pod_ids = (await session.execute(select(DraftPod.id))).scalars().all()
        seats = (await session.execute(select(DraftSeat.pod_id, DraftSeat.seat, DraftSeat.user_id))).all()
    prompts = {seat: prompt_for(model, seat) for seat in range(SEATS)}  # every copy has the template's packs
    users = {(pod_id, seat): user_id for pod_id, seat, user_id in seats}
    now = utcnow()
    letters = {emoji_key(regional_indicator(i)): {fake.bot_user_id: None} for i in range(len(prompts[0].cards))}
    messages, deliveries, queued = [], [], []
    for pod_id in pod_ids:
        for seat in range(SEATS):
            user_id = users[(pod_id, seat)]
            fake.add_user(user_id, f"drafter{user_id}")
            channel_id = int(fake._dm_channel(user_id)["id"])
            message = fake._create_message(channel_id, {"content": "pack"}, {}, validate=False)
            message_id = int(message["id"])
            fake._reactions[message_id] = {key: dict(users_) for key, users_ in letters.items()}
            fake._sync_reactions_field(message_id)
            prompt = prompts[seat]
            shows = seat != 0  # seat 0 waits: its message shows no pack, its next one is queued
            messages.append({
                "pod_id": pod_id, "seat": seat, "channel_id": channel_id, "message_id": message_id,
                "pack_id": prompt.pack_id if shows else None, "pack_pick": prompt.pack_pick if shows else None,
                "letters": len(prompt.cards), "highlights": 0, "created_at": now,
            })
            if shows:
                deliveries.append({"pod_id": pod_id, "pack_id": prompt.pack_id, "pack_pick": prompt.pack_pick,
                                   "seat": seat, "channel_id": channel_id, "message_id": message_id,
                                   "delivered_at": now})
            else:
                payload = {**prompt.to_payload(), "pod_id": pod_id, "user_id": user_id, "pick_mode": "reactions"}
                queued.append({"kind": drafts.PACK, "guild_id": 1, "user_id": user_id, "payload": payload,
                               "status": outbox.PENDING, "attempts": 0, "created_at": now,
                               "next_attempt_at": now + outbox.IMMEDIATE_LEASE})
    async with db.write() as session:
        # The template's own first pack DMs count as delivered, like every copy's.
        await session.execute(update(OutboxMessage).values(status=outbox.SENT))
        await session.execute(insert(DraftPackMessage), messages)
        await session.execute(insert(DraftDelivery), deliveries)
        await session.execute(insert(OutboxMessage), queued)
        await session.execute(DraftPod.__table__.update().values(pick_mode="reactions"))
    return len(deliveries)


async def start_and_watch(fake: FakeDiscord, url: str, workdir: Path, watch: float) -> dict:
    """Start the bot, watch it for `watch` seconds; what it did and its memory."""
    bot = BotProcess(fake, url, workdir)
    since = len(fake.rest_log)
    started = time.monotonic()
    await bot.start()
    ready = time.monotonic() - started
    try:
        await asyncio.sleep(watch)  # observing a paced process for a fixed window, not synchronising
        assert bot.process is not None
        rss, peak = rss_kib(bot.process.pid)
    finally:
        await bot.stop()
    calls = fake.rest_log[since:]
    edits = [c for c in calls if c.method == "PATCH" and c.route == READ_ROUTE]
    reads = [c for c in calls if c.method == "GET" and c.route == READ_ROUTE]
    return {
        "ready": ready, "rss_kib": rss, "peak_kib": peak,
        "first_resend": (edits[0].time - started) if edits else None, "resends": len(edits),
        "reads": len(reads), "read_twice": sum(1 for n in Counter(c.path for c in reads).values() if n > 1),
        "read_span": (reads[-1].time - reads[0].time) if len(reads) > 1 else 0.0,
        "first_read": (reads[0].time - started) if reads else None,
    }


async def run(pods: int = 1000, watch: float = 15.0, *, quiet: bool = False) -> dict:
    fake = FakeDiscord()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            empty_url = f"sqlite+aiosqlite:///{tmp}/empty.sqlite3"
            empty = Database(empty_url)
            await upgrade(empty)
            await empty.dispose()
            baseline = await start_and_watch(fake, empty_url, Path(tmp), min(watch, 5.0))
            url = f"sqlite+aiosqlite:///{tmp}/pods.sqlite3"
            db = Database(url)
            try:
                await upgrade(db)
                showing = await fill_reaction_pods(db, fake, pods)
                pending = len(await reactions.all_pending(db))
            finally:
                await db.dispose()
            busy = await start_and_watch(fake, url, Path(tmp), watch)
    finally:
        await fake.stop()
    pace = (busy["reads"] - 1) / busy["read_span"] if busy["read_span"] else 0.0
    figures = {
        "pods": pods, "watch": watch, "showing": showing, "pending": pending,
        "memory_per_pod_kib": (busy["rss_kib"] - baseline["rss_kib"]) / pods,
        "rss_empty_kib": baseline["rss_kib"], "rss_pods_kib": busy["rss_kib"], "peak_pods_kib": busy["peak_kib"],
        "ready": busy["ready"], "first_resend": busy["first_resend"], "resends": busy["resends"],
        "reads": busy["reads"], "read_twice": busy["read_twice"], "pace": pace, "first_read": busy["first_read"],
        "bound": pending / RECONCILE_PER_SECOND,
    }
    if not quiet:
        print_figures(figures)
    return figures


def print_figures(f: dict) -> None:
    print(f"\n== restart with {f['pods']:,} active 8-seat reaction pods (SQLite) ==")
    print(f"memory        : {f['rss_pods_kib'] / 1024:.1f} MiB resident vs {f['rss_empty_kib'] / 1024:.1f} MiB with no pods"
          f" = {f['memory_per_pod_kib']:.2f} KiB per active pod (peak {f['peak_pods_kib'] / 1024:.1f} MiB)")
    first = "none" if f["first_resend"] is None else f"{f['first_resend']:.2f} s"
    print(f"re-sends      : first queued pack shown again {first} after the process started (READY at {f['ready']:.2f} s);"
          f" {f['resends']} of {f['pods']:,} within {f['watch']:.0f} s")
    first_read = "none" if f["first_read"] is None else f"the first {f['first_read']:.2f} s after the start"
    print(f"reconciliation: {f['pending']:,} pack messages pending (a read each at most); {f['reads']} read in the window"
          f" ({first_read})"
          f" at {f['pace']:.1f}/s (limit {RECONCILE_PER_SECOND}/s), {f['read_twice']} read twice;"
          f" all of them take ≤ {f['bound']:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--watch", type=float, default=15.0, help="seconds to watch the restarted bot")
    args = parser.parse_args()
    asyncio.run(run(args.pods, args.watch))


if __name__ == "__main__":
    main()
