"""A Rotisserie's turns: where a booster draft DMs each player the pack that reached them, a Rotisserie
posts in its channel whose turn it is, pinging that player alone (`deliveries.queue_packs` hands a
variant's turns here; a Winston or Grid draft's are `kind_turns`')."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft.service import kind_turns, variants
from bot.games.draft.service.state import PackPrompt, Pod, prompt_for
from bot.kit import outbox
from bot.kit.events import Payload

TURN = "draft.turn"  # in the channel: whose pick it is in a Rotisserie (payload: Turn)
NO_PACKS = ("A Rotisserie, Winston or Grid draft sends no packs: in a Rotisserie the player on turn is pinged in the "
            "draft's channel and takes a card there with `/draft take`; in a Winston draft they look at the piles "
            "by DM; in a Grid draft they take a row or a column with the buttons under the grid in the channel.")


@dataclass(frozen=True)
class Turn(Payload):
    """`user_id` is on turn in Rotisserie `pod_id`: their pick `pick_number` of `picks`, `left` cards on offer."""

    pod_id: int
    user_id: int
    pick_number: int
    picks: int
    left: int


async def queue_turns(session: AsyncSession, pod: Pod, seats: set[int] | list[int]) -> tuple[list[PackPrompt], None]:
    """The channel post for the seat on turn, if it is among `seats` and a player's (a bot picks at
    once); the prompts are a booster draft's (`deliveries.queue_packs`), for the pick's answer."""
    prompts = [p for seat in sorted(seats) if (p := prompt_for(pod, seat)) is not None]
    row = pod.row
    if row.variant == variants.WINSTON:
        await kind_turns.queue_winston(session, pod, prompts)
        return prompts, None
    if row.variant == variants.GRID:
        await kind_turns.queue_grid(session, pod, prompts, seats)
        return prompts, None
    posts = [outbox.Message(TURN, Turn(row.id, p.user_id, p.pick_number, row.pack_size, len(p.cards)).to_payload(),
                            channel_id=row.channel_id, guild_id=row.guild_id) for p in prompts]
    if posts:
        await outbox.queue(session, *posts)
    return prompts, None
