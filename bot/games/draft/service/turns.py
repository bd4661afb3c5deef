"""A Rotisserie's turns: where a booster draft DMs each player the pack that reached them, a Rotisserie
posts in its channel whose turn it is, pinging that player alone (`deliveries.queue_packs` hands a
variant's turns here)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft.service.state import PackPrompt, Pod, prompt_for
from bot.kit import outbox
from bot.kit.events import Payload

TURN = "draft.turn"  # in the channel: whose pick it is in a Rotisserie (payload: Turn)
NO_PACKS = ("A Rotisserie draft sends no packs: on your turn you are pinged in the draft's channel, and you take "
            "a card there with `/draft take`.")


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
    posts = [outbox.Message(TURN, Turn(row.id, p.user_id, p.pick_number, row.pack_size, len(p.cards)).to_payload(),
                            channel_id=row.channel_id, guild_id=row.guild_id) for p in prompts]
    if posts:
        await outbox.queue(session, *posts)
    return prompts, None
