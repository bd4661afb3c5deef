"""/pod: a draft pod's matches after its draft: start, report, status, drop, pair, decide, end."""

from __future__ import annotations

from functools import partial

import discord
from discord import app_commands
from discord.ext import commands

from bot.games.pod_matches import service as pods
from bot.games.pod_matches import ui
from bot.kit import claims, claims_ui, limits, lookups
from bot.kit.client import KitBot
from bot.kit.dispatch import actor_of, require_guild
from bot.kit.errors import UserError
from bot.kit.uploads import read_upload

Games = app_commands.Range[int, 0, 2]
Drawn = app_commands.Range[int, 0, 3]
DECK_KEPT = "Your deck is kept: nobody sees it until the pod has ended, then it is on the pod's page."


class PodCog(commands.Cog, name="PodCog"):
    group = app_commands.Group(name="pod", description="A draft pod's matches after its draft.", guild_only=True)

    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        self.db = bot.db

    async def _here(self, interaction: discord.Interaction) -> pods.PodView:
        return await pods.pod_here(self.db, require_guild(interaction), interaction.channel_id)

    @group.command(name="start", description="Start the matches of the draft that finished here (organizers).")
    @app_commands.describe(bot1="Who plays Bot 1's seat (a bot's seat without a stand-in sits out).",
                           bot2="Who plays Bot 2's seat.", bot3="Who plays Bot 3's seat.",
                           teams="Two teams, seated alternately, play each other (an even number of players).",
                           auto="Pair each round as soon as the last one is in (default: the organizer pairs).")
    async def start(self, interaction: discord.Interaction, bot1: discord.Member | None = None,
                    bot2: discord.Member | None = None, bot3: discord.Member | None = None, teams: bool = False,
                    auto: bool = False) -> None:
        pod = await self._here(interaction)
        stand_ins = {-number: member.id for number, member in enumerate((bot1, bot2, bot3), start=1) if member}
        unknown = [f"Bot {-seat}" for seat in stand_ins if seat not in pod.bots]
        if unknown:
            raise UserError(f"This draft had no {', '.join(unknown)}.")
        await pods.start(self.db, pod.id, actor_of(interaction), stand_ins=stand_ins, teams=teams, auto_pair=auto)
        await interaction.response.send_message("The matches start: round 1's pairings follow.", ephemeral=True)

    @group.command(name="report", description="Report your match of this round: the games you won and lost.")
    @app_commands.describe(won="Games you won.", lost="Games you lost.", drawn="Drawn games, if any.",
                           deck="Your decklist (a text file), shown on the pod's page once the pod has ended.")
    async def report(self, interaction: discord.Interaction, won: Games, lost: Games, drawn: Drawn = 0,
                     deck: discord.Attachment | None = None) -> None:
        pod = await self._here(interaction)
        data = await read_upload(deck, "decklist") if deck is not None else None
        done = await pods.report(self.db, pod.id, actor_of(interaction), won, lost, drawn, deck=data)
        words = pods.result_words(done.claim)
        if done.how == claims.AGREED:
            await interaction.response.send_message(f"✅ {words}: both reported it, so it counts.",
                                                    allowed_mentions=discord.AllowedMentions.none())
        elif done.how == claims.DISPUTED:
            await interaction.response.send_message("Your opponent reported otherwise: an organizer decides, the "
                                                    "channel is told.", ephemeral=True)
        else:
            await interaction.response.send_message(
                f"📝 Report #{done.claim.number}: {words}. <@{done.claim.opponent}>, confirm or dispute it.",
                view=claims_ui.answer_view(pods.KIND, pod.id, done.claim.number),
                allowed_mentions=limits.ping(done.claim.opponent))
            await claims_ui.record_answer(interaction, partial(pods.report_shown, self.db, pod.id, done.claim.number))
        if data is not None:
            await interaction.followup.send(DECK_KEPT, ephemeral=True)

    @group.command(name="status", description="The pod's pairings and standings.")
    @app_commands.describe(post=lookups.POST)
    async def status(self, interaction: discord.Interaction, post: bool = False) -> None:
        pod = await self._here(interaction)
        await interaction.response.send_message(embed=ui.standings_embed(pod, final=pod.status == pods.ENDED),
                                                ephemeral=not post)

    @group.command(name="leave", description="Stop playing the pod's matches (an organizer may drop a player).")
    @app_commands.describe(player="The player to drop (organizers); leave empty to drop yourself.")
    async def drop(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        pod = await self._here(interaction)
        await pods.drop(self.db, pod.id, actor_of(interaction), player.id if player else None)
        await interaction.response.send_message("Done: the channel is told.", ephemeral=True)

    @group.command(name="pair", description="Pair the next round once this one is in (organizers).")
    async def pair(self, interaction: discord.Interaction) -> None:
        pod = await self._here(interaction)
        view = await pods.pair_next(self.db, pod.id, actor_of(interaction))
        await interaction.response.send_message(f"Round {view.state.round} is paired.", ephemeral=True)

    @group.command(name="decide", description="Decide a match of this round (organizers who do not play in it).")
    @app_commands.describe(player="One of the match's players.", won="Games that player won.",
                           lost="Games that player lost.", drawn="Drawn games, if any.")
    async def decide(self, interaction: discord.Interaction, player: discord.Member, won: Games, lost: Games,
                     drawn: Drawn = 0) -> None:
        pod = await self._here(interaction)
        await pods.decide(self.db, pod.id, actor_of(interaction), player.id, won, lost, drawn)
        await interaction.response.send_message("Decided: the channel is told.", ephemeral=True)

    @group.command(name="end", description="End the pod's matches now and record the standings (organizers).")
    async def end(self, interaction: discord.Interaction) -> None:
        pod = await self._here(interaction)
        await pods.end(self.db, pod.id, actor_of(interaction))
        await interaction.response.send_message("The pod's matches are over: the final standings follow.",
                                                ephemeral=True)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(PodCog(bot))
