"""What one button pick in a DM goes through, counted in process (issue 36):

    .venv/bin/python -m benchmarks.pick_path [--picks N]

* the bot's modules a button pick passes: `sys.setprofile` over the draft cog's `_pick` (the
  service's pick, then its answer on the message picked on, and the recording of what that message
  shows now), counting the distinct `bot/` modules whose functions are called;
* the write transactions per pick: `Database.write` and `Database.transact` entered (by the pick
  and by the record of its answer; what other players' sends settle later is not the picker's);
* the time of the whole pick (its transactions, not Discord) ÷ a bare 1-row insert, on SQLite.

Discord is a stand-in here (the interaction's edit returns at once; no pack picture: the cards'
images are not cached), so the modules of sending are not counted; the service and the cog's are.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_draft import SEATS, bare_insert_times, cube  # noqa: E402
from bot.games.draft import FORMAT as DRAFT  # noqa: E402
from bot.games.draft import service as drafts  # noqa: E402
from bot.games.draft.cog import DraftCog  # noqa: E402
from bot.games.draft.messages import DraftMessages  # noqa: E402
from bot.kit.delivery import Outbox  # noqa: E402
from bot.kit.formats import renderers_of  # noqa: E402
from bot.kit.tables import Actor  # noqa: E402
from bot.store.db import Database  # noqa: E402
from bot.store.migrate import upgrade  # noqa: E402

BOT = Path(__file__).resolve().parents[1] / "bot"
DM_CHANNEL = 777


class Response:
    async def edit_message(self, **kwargs) -> None:
        pass


class Interaction:
    """A button click in the picker's DM on the message that shows their pack."""

    def __init__(self, user_id: int, message_id: int) -> None:
        self.user = SimpleNamespace(id=user_id)
        self.guild_id = None
        self.channel_id = DM_CHANNEL
        self.message = SimpleNamespace(id=message_id)
        self.response = Response()


class NoPictures:
    async def render(self, *args, **kwargs):
        return None


class StandInBot(SimpleNamespace):
    """The bot as the draft's cog and messages see it (weakly referable, unlike SimpleNamespace)."""

    __hash__ = object.__hash__


class Writes:
    """Counts the write transactions the process begins."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> Writes:
        self._saved = Database.write, Database.transact
        write, transact = self._saved
        counter = self

        @asynccontextmanager
        async def counted_write(db, *args, **kwargs):
            counter.count += 1
            async with write(db, *args, **kwargs) as session:
                yield session

        async def counted_transact(db, job, **kwargs):
            counter.count += 1
            return await transact(db, job, **kwargs)

        Database.write, Database.transact = counted_write, counted_transact
        return self

    def __exit__(self, *exc) -> None:
        Database.write, Database.transact = self._saved


def traced_modules(seen: set[str]):
    """A profile function adding the bot module of every Python function called to `seen`."""
    root = str(BOT)

    def profile(frame, event, arg) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(root):
            seen.add(str(Path(frame.f_code.co_filename).relative_to(BOT.parent).with_suffix("")).replace("/", "."))

    return profile


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--picks", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/pick_path.db"
        db = Database(url)
        try:
            await upgrade(db)
            await run(db, args.picks)
        finally:
            await db.dispose()


async def run(db: Database, picks: int) -> None:
    bot = StandInBot(db=db, settings=SimpleNamespace(scryfall_base="https://scryfall.test"), pictures=NoPictures())
    bot.outbox = Outbox(bot, renderers_of([DRAFT]))
    db.listen("outbox", lambda queued: None)  # other players' packs: not sent here
    cog = SimpleNamespace(db=db, bot=bot, messages=DraftMessages(bot))
    organizer = Actor(1, 1, manage_guild=True)
    pod = await drafts.create_pod(db, organizer, channel_id=5, cube=cube(), seed=7, pick_mode="buttons")
    for seat in range(SEATS):
        await drafts.join(db, pod.id, Actor(10_000 + seat, 1))
    begun = await drafts.begin(db, pod.id, organizer)
    pending = {p.user_id: p for p in begun.prompts}
    shown = {p.user_id: 900_000 + i for i, p in enumerate(begun.prompts)}  # each player's DM pack message
    for user_id, message_id in shown.items():
        await drafts.record_shown(db, pending[user_id], channel_id=DM_CHANNEL, message_id=message_id)

    in_place: list[float] = []

    async def one_pick() -> float:
        user_id = sorted(pending)[0]
        prompt = pending.pop(user_id)
        start = time.perf_counter()
        await DraftCog._pick(cog, Interaction(user_id, shown[user_id]), pod.id, prompt.pack_id, prompt.pack_pick, 0,
                             "button")
        await bot.outbox.drain()
        elapsed = time.perf_counter() - start
        current = await drafts.current_prompt(db, pod.id, user_id)
        if current is not None:  # their next pack was waiting: the pick showed it in place
            pending[user_id] = current
            in_place.append(elapsed)
        return elapsed

    async def refill() -> None:  # players whose pack arrived (as a new DM) get a message id for it
        for seat in range(SEATS):
            user_id = 10_000 + seat
            if user_id not in pending and (p := await drafts.current_prompt(db, pod.id, user_id)) is not None:
                pending[user_id] = p
                if await drafts.delivery_message(db, pod.id, p.pack_id, p.pack_pick) is None:
                    shown[user_id] = 800_000 + p.pack_id * 100 + p.pack_pick
                    await drafts.record_shown(db, p, channel_id=DM_CHANNEL, message_id=shown[user_id])

    await one_pick()  # warm-up: imports, prepared statements
    await refill()
    traced: set[str] = set()
    sys.setprofile(traced_modules(traced))
    try:
        await one_pick()
    finally:
        sys.setprofile(None)
    modules = {m for m in traced if not m.startswith("bot.store")}
    times, transactions = [], []
    for _ in range(picks):
        await refill()
        if not pending:
            break
        with Writes() as writes:
            times.append(await one_pick())
        transactions.append(writes.count)
    in_place_times = in_place[-len(times):]
    inserts = await bare_insert_times(db, 200)
    pick_p50, insert_p50 = statistics.median(times), statistics.median(inserts)
    print(f"modules a button pick passes (bot/, without bot.store): {len(modules)}")
    print(f"  also of bot.store: {len({m for m in traced if m.startswith('bot.store')})}")
    print("  " + ", ".join(sorted(modules)))
    spread = ", ".join(f"{n} picks: {k}" for k, n in sorted(Counter(transactions).items()))
    print(f"write transactions per pick: {statistics.mean(transactions):.2f} over {len(transactions)} picks "
          f"(picks by transactions: {spread}; 2 = the picker's next pack shown in place, then recorded)")
    print(f"whole pick (its transactions) ÷ bare insert, SQLite p50: {pick_p50 / insert_p50:.2f}× "
          f"({pick_p50 * 1000:.2f} ms ÷ {insert_p50 * 1000:.2f} ms); mean {statistics.mean(times) * 1000:.2f} ms")
    if in_place_times:
        print(f"  picks that showed the next pack in place: p50 {statistics.median(in_place_times) * 1000:.2f} ms, "
              f"mean {statistics.mean(in_place_times) * 1000:.2f} ms ({len(in_place_times)} picks)")


if __name__ == "__main__":
    asyncio.run(main())
