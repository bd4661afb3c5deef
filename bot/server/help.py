"""/help: what the bot runs, how to start each format, how to set a server up; and the greeting a
server gets when the bot joins it.

Every text about a format is in `FORMATS` below (one place to update): the overview's one line, the
flow of `/help format:`, its rules in short and the name of its rules page in the repository's
`docs/rules/`. `/about` lists the formats from it too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord
from discord import app_commands
from discord.ext import commands

from bot.kit.client import KitBot

log = logging.getLogger(__name__)

COLOUR = discord.Colour.blurple()
RULES_HOME = "docs/rules/"  # in the bot's repository; named as text (Discord gets no links from us)


@dataclass(frozen=True)
class FormatHelp:
    key: str  # /help format:<key>, and docs/rules/<key>.md
    name: str
    start: str  # the overview's one line: how to start it
    about: str  # what it is, in a sentence or two
    flow: tuple[str, ...]  # start → join → begin → … → end, with the commands of each step
    rules: str  # the rules in short
    more: str  # the other commands

    @property
    def rules_page(self) -> str:
        return f"{RULES_HOME}{self.key}.md"


FORMATS: tuple[FormatHelp, ...] = (
    FormatHelp(
        key="goldfish",
        name="Goldfish Draft",
        start="`/draft start cube:goldfish goldfish:True`, or `/goldfish start` to score a draft played elsewhere",
        about="A booster draft of 2 packs of 15, then each player plays one game alone against a "
              "\"goldfish\" that does nothing, and scores what the goldfish suffered.",
        flow=(
            "**Start:** `/draft start cube:goldfish goldfish:True` (an organizer); for a draft played in "
            "paper, `/goldfish start name turns` opens the scoring alone.",
            "**Join:** `/draft join` or the lobby's Join button; `/draft leave` to give the seat up.",
            "**Begin:** `/draft begin` (the lobby also begins by itself once it is full). Picks come by DM.",
            "**Play:** when the draft is over the scoring event opens; each player plays their game "
            "and sends `/goldfish report` with the numbers and a turn-by-turn write-up (again to correct it).",
            "**Follow:** `/goldfish status` shows the scores; `/goldfish writeup` reads a player's game.",
            "**End:** `/goldfish end` (the organizer; asks first) makes the standings final and sends them to "
            "the leaderboard. `/goldfish cancel` (asks first) deletes the event and its scores, with nothing recorded.",
        ),
        rules="The game lasts 7 turns with the Goldfish Cube, 10 otherwise (the event says). You stack your "
              "deck and may add basic lands; the goldfish has endless basic lands, plays one a turn and "
              "always chooses what scores you least. Score: 1 per life it lost, ½ per card milled, 2 per "
              "poison counter, 20 per \"win the game\" or \"lose the game\" effect; 0 if you lose or draw. "
              "Restarting resets your score. Highest score wins.",
        more="`/goldfish rules` the full game rules · `/goldfish reject` (organizer) refuses a score with a "
             "reason · `/goldfish flip`, `/goldfish roll` fixed coin flips and dice for write-ups.",
    ),
    FormatHelp(
        key="draft",
        name="Draft pods",
        start="`/draft start cube:<cube>`: a booster draft picked in DMs at each player's pace",
        about="An asynchronous booster draft: everyone picks when they like, by reacting to or clicking "
              "the pack the bot DMs them. Any cube works: `/cube list` shows them.",
        flow=(
            "**Start:** `/draft start cube` (an organizer), with packs, pack size, seats and an optional pick timer.",
            "**Join:** `/draft join` or the Join button; `/draft leave` before it begins.",
            "**Begin:** `/draft begin` (at least 2 players), or it begins by itself when the lobby is full.",
            "**Pick:** each pack comes by DM; pick with its letter or button. `/draft resend` DMs your pack "
            "again; `/draft pick` picks in the server when your DMs are closed.",
            "**Follow:** `/draft status` shows who the draft waits on; `/draft pool` your picks.",
            "**End:** the draft ends by itself after the last pick and every player gets their pool; "
            "`/draft export` gives it as a deck file. `/draft cancel` (organizer; asks first) stops it.",
        ),
        rules="Pack 1 passes left, pack 2 right, pack 3 left. A pack passed to a busy player waits in their "
              "queue; nobody picks from a later pack while an earlier one can still reach them. With a pick "
              "timer, a player who runs out of time gets a pick made for them; after 3 in a row a bot takes "
              "the seat until they come back with `/draft rejoin`.",
        more="`/draft start … bots:N` seats bot drafters · `/draft replace` (organizer) hands a seat to a bot · "
             "`/draft rejoin` takes it back · `/draft seat` (organizer) gives a bot's seat to a new player · "
             "`/draft log` the complete draft as a Draftmancer, MTGO or text log.",
    ),
    FormatHelp(
        key="battler",
        name="Treasure Battler",
        start="`/battler start cube:battler`: an autobattler-style cube game of drafts and mini-games",
        about="Draft a small pool, play short mini-games, collect treasures and survive the poison: the "
              "last player standing wins. The bot deals every pack and keeps every resource.",
        flow=(
            "**Start:** `/battler start cube` (an organizer), with the poison, carousel and treasure options.",
            "**Join:** `/battler join` or the Join button; `/battler leave`.",
            "**Begin:** `/battler begin` (an even number of players). Each player gets 5 cards by DM and "
            "chooses 2 basic lands.",
            "**Play:** the channel posts the pairings; play your mini-game and send `/battler report` with "
            "your treasures left (the winner may report that the opponent conceded); your opponent presses "
            "Confirm or Dispute.",
            "**Draft:** each draft comes by DM: trade, re-roll, shift or buy basics, then Done. "
            "`/battler stash` shows yours; `/battler resend` DMs it again.",
            "**End:** the game ends by itself when one player is left, and the standings go to the "
            "leaderboard. `/battler cancel` (organizer; asks first) stops it with nothing recorded.",
        ),
        rules="Each round is a draft, then a mini-game (10 life, a hand of stage + 2 cards from your stash, "
              "no library). The loser gets poison by stage (1, 1, 2, 3, 5, or a flat 2); a draw is a loss "
              "for both. Treasures buy re-rolls and basics; you keep at most 5. At 10 poison you are out (the "
              "first becomes the Ghost and keeps playing until a second player is out).",
        more="`/battler status` the whole table in public · `/battler rules` the resource table · "
             "`/battler force` (organizer; asks first) ends a draft phase now · a dispute is decided by an "
             "organizer who does not play in that game.",
    ),
    FormatHelp(
        key="turnabout",
        name="Turnabout",
        start="`/turnabout start`: a Swiss event where game 1 of every match is played with the opponent's deck",
        about="Every match is two games: game 1 with your opponent's deck, game 2 with your own. Games "
              "score match points, matches split 30 Victory Points, and rounds are Swiss.",
        flow=(
            "**Start:** `/turnabout start` (an organizer), with rounds, a chess clock (its minutes and delay or "
            "increment) and the bye's VP.",
            "**Join:** `/turnabout join deck scoring decklist` enters your deck and its scoring option "
            "(again to change them); `/turnabout leave` gives the seat up (after begin: drops you, asks first).",
            "**Begin:** `/turnabout begin` (at least 4 players).",
            "**Each round:** `/turnabout pair` (organizer) posts the pairings; players play both games and "
            "send `/turnabout report` for each; the opponent presses Confirm or Dispute.",
            "**Follow:** `/turnabout status` shows the standings; `/turnabout settle` (an organizer who does "
            "not play in that match) decides a dispute or a no-show.",
            "**End:** `/turnabout end` (organizer, after a finished round; asks first) posts the final ranking "
            "and rating awards. `/turnabout cancel` stops it with nothing recorded.",
        ),
        rules="Decks: 60+ cards, no sideboard, no ante cards, nothing fetched from outside the game. Game 1: "
              "5 minutes to study the opponent's deck; game 2: 3 minutes, and whoever played first plays "
              "second. A game's winner scores by the losing deck's option: Dominaria 10 + life, Tolaria 10 + "
              "half the library, Phyrexia 30 − 2 × poison (always 10 to 30). Never the same opponent twice: "
              "after drops, rounds that would need a rematch leave the schedule.",
        more="`/turnabout rating` the server's ratings over all events · `/clock start` a chess clock.",
    ),
    FormatHelp(
        key="421",
        name="421",
        start="`/421 start sets:<set codes>`: a league building decks from one shared 4/2/1 pool",
        about="A league for 2–6 players who build 60-card decks from one shared pool of a set: 4 of each "
              "common, 2 of each uncommon, 1 of each rare. The loser of each match changes decks.",
        flow=(
            "**Start:** `/421 start sets` (an organizer), e.g. `sets:ala con arb`; `/421 set add` keeps a set "
            "list of your own.",
            "**Join:** `/421 join` or the Join button; `/421 leave`.",
            "**Begin:** `/421 begin` seats the players; each builds a deck with `/421 build`.",
            "**Each match:** play it and send `/421 report`; the opponent presses Confirm or Dispute. The loser "
            "then picks "
            "with `/421 choose`: A alter (`/421 alter`), B build anew, C claim a set-aside deck, D make the "
            "winner build anew. `/421 takeapart` when a new deck would be one too many.",
            "**Follow:** `/421 status` shows scores, decks and who acts next; `/421 pool` and `/421 decks` "
            "the cards.",
            "**End:** the first to the target score (21) wins and the league ends by itself; `/421 end` "
            "(organizer; asks first) ends it now. `/421 cancel` stops it with nothing recorded.",
        ),
        rules="Decks are exactly 60 cards of unchosen copies; every list is public. Win +2, loss −1, draw 0. "
              "The second set joins when someone would build deck 6, the third at deck 11 (two unused "
              "decks are taken apart, so at most 10 decks exist). With 3 or 5 players one sits out each "
              "round and scores +2.",
        more="`/421 settle` (an organizer who does not play in it) decides a disputed match · `/421 set list` "
             "the server's sets.",
    ),
    FormatHelp(
        key="vortex",
        name="Vortex Based Magic",
        start="`/vortex start cube:<cube>`: 2–5 players share one shoe and every draw is a pick from a pack",
        about="There are no libraries: everyone shares a face-down shoe, and every draw refills your hidden "
              "7-card pack from it, then you pick one card. The bot keeps the hidden zones; you play the game.",
        flow=(
            "**Start:** `/vortex start cube` (an organizer).",
            "**Join:** `/vortex join` or the Join button (2–5 players); `/vortex leave`.",
            "**Begin:** `/vortex begin` deals the packs; the opening hands are 4 picks each by DM, then 3 "
            "basic lands.",
            "**Play:** `/vortex draw` to draw (a pick by DM), `/vortex shoe` for mill, look, search and the "
            "like, `/vortex mulligan` in your upkeep, `/vortex pass` to end your turn.",
            "**Table:** `/vortex play card` puts a card from your hand onto the battlefield; `/vortex move card "
            "from to` moves one between your hand, the battlefield, your graveyard and exile; `/vortex life "
            "amount` (−3 for damage, 2 for life gained).",
            "**Follow:** `/vortex status` the public state (every zone's size, life); `/vortex hand` your cards; "
            "`/vortex resend` DMs again what waits for your answer.",
            "**End:** `/vortex end winner` (organizer; asks first) records the winner; without a winner "
            "nothing is recorded. `/vortex cancel` stops a game with nothing recorded.",
        ),
        rules="The shoe is the cube plus one of each basic land per player. Draw: refill your pack to exactly "
              "7 from the shoe, then pick one. Picking from an empty pack counters the stack, ends the turn "
              "and costs 1 life. After your turn your pack and the passed pack swap. In your upkeep, with 5+ "
              "basic lands in your pack, you may exile it and refill to 5 until the end of the turn.",
        more="`/clock start` a chess clock between two players, if you like.",
    ),
)
BY_KEY = {entry.key: entry for entry in FORMATS}
FORMAT_CHOICES = [app_commands.Choice(name=entry.name, value=entry.key) for entry in FORMATS]

WHAT_IT_RUNS = (
    "I run casual Magic: The Gathering formats **asynchronously**: drafts picked in DMs at each "
    "player's pace, and games whose hidden cards, scores and standings I keep. Every finished event "
    "feeds the server's `/leaderboard`."
)

# The three setup steps (the real /config options), for /help and the greeting.
SETUP_STEPS = (
    "`/config set organizer_role:@Role`: who may start and run events (members with Manage Server always may).",
    "`/config set leaderboard_channel:#channel`: where final results are posted.",
    "`/config set pictures:on` or `off`: card pictures in pack DMs and pools (on by default).",
)
SETUP_TEXT = "\n".join(f"{number}. {step}" for number, step in enumerate(SETUP_STEPS, start=1))

GREETING = (
    "Hello! I run casual Magic: The Gathering formats asynchronously in this server: drafts picked in DMs, "
    "Goldfish Draft, Treasure Battler, Turnabout, 421 and Vortex Based Magic.\n"
    "**To set me up** (someone with Manage Server):\n"
    f"{SETUP_TEXT}\n"
    "`/config show` checks that I may post where I need to. `/help` shows how to start each format."
)


def format_names() -> str:
    return ", ".join(entry.name for entry in FORMATS)


def overview_embed() -> discord.Embed:
    embed = discord.Embed(title="MTG async formats bot: help", description=WHAT_IT_RUNS, colour=COLOUR)
    embed.add_field(
        name="Start a format", inline=False,
        value="\n".join(f"**{entry.name}:** {entry.start}" for entry in FORMATS),
    )
    embed.add_field(name="Set up (Manage Server)", value=SETUP_TEXT, inline=False)
    embed.add_field(
        name="Also", inline=False,
        value="`/cube list` the cubes · `/leaderboard` the standings · `/clock start` a chess clock · "
              "`/about` the bot's version",
    )
    embed.set_footer(text="/help format:<name> shows a format's steps and rules in short. "
                          f"Full rules for players: {RULES_HOME}<format>.md in the bot's repository.")
    return embed


def format_embed(entry: FormatHelp) -> discord.Embed:
    embed = discord.Embed(title=f"{entry.name}: help", description=entry.about, colour=COLOUR)
    embed.add_field(name="How it goes", value="\n".join(entry.flow), inline=False)
    embed.add_field(name="The rules in short", value=entry.rules, inline=False)
    embed.add_field(name="Other commands", value=entry.more, inline=False)
    embed.set_footer(text=f"The full rules for players: {entry.rules_page} in the bot's repository.")
    return embed


def pages() -> list[discord.Embed]:
    """Every help page (the overview, then each format's): what a test measures against the limits."""
    return [overview_embed(), *(format_embed(entry) for entry in FORMATS)]


def may_greet(channel: discord.abc.GuildChannel | None, me: discord.Member | None) -> bool:
    """Whether the bot may post its greeting (plain text) in `channel`."""
    if channel is None or me is None:
        return False
    allowed = channel.permissions_for(me)
    return allowed.view_channel and allowed.send_messages


class Help(commands.Cog):
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What the bot runs, how to start each format and how to set it up.")
    @app_commands.describe(format="A format: its steps from start to end, and its rules in short.")
    @app_commands.choices(format=FORMAT_CHOICES)
    async def help(self, interaction: discord.Interaction, format: app_commands.Choice[str] | None = None) -> None:
        embed = overview_embed() if format is None else format_embed(BY_KEY[format.value])
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Greet a server the bot was just added to, once, in its system channel if it may post there."""
        channel = guild.system_channel
        if not may_greet(channel, guild.me):
            log.info("Joined server %s; no system channel I may post in, so no greeting", guild.id)
            return
        try:
            await channel.send(GREETING, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as error:
            log.warning("Joined server %s; the greeting was refused: %s", guild.id, error)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(Help(bot))
