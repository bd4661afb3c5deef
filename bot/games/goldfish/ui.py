"""Goldfish Draft: the score modal, standings and write-ups (no rules, no SQL)."""

from __future__ import annotations

import discord

from bot.games.goldfish import rules
from bot.games.goldfish.service import EventView, Standing, SubmissionView
from bot.kit import limits
from bot.kit.dispatch import Component, ModalRoute, Part, StatelessModal, modal_route, number, word
from bot.kit.paginate import PageList
from bot.kit.text import escape, plural

WRITEUP_PAGE_CHARS = 3500
WRITEUP_PAGES = PageList("writeup")  # a player's write-up, long ones in pages
# Discord's limits for a modal's parts.
MODAL_TITLE = 45
LABEL = 45
LABEL_DESCRIPTION = 100
PLACEHOLDER = 100


MINUS = rules.MINUS  # the one minus sign users see

# An event's status and scoring method as players read them (not the stored words).
STATUS_TEXT = {"open": "taking scores", "closed": "ended"}
METHOD_TEXT = {"sum": "score: life lost, cards milled, poison and wins added up",
               "max": "score: the largest of life lost, cards milled, poison and wins",
               "product": "score: life lost, cards milled, poison and wins multiplied (those above 0)"}


def _fmt(value: float) -> str:
    return f"{value:g}".replace("-", MINUS)


def breakdown_text(sub: SubmissionView) -> str:
    parts = sub.parts
    text = (
        f"life {_fmt(sub.life_lost)} → {_fmt(parts.life)}, milled {sub.cards_milled} → {_fmt(parts.mill)}, "
        f"poison {sub.poison} → {_fmt(parts.poison)}, win/lose effects {sub.game_wins} → {_fmt(parts.win)}"
    )
    if sub.lost_or_drew:
        text += " · lost/drew: 0"
    if sub.prevented:
        text += " · win prevented: 0"
    return text


def standings_embed(event: EventView, standings: list[Standing], *, final: bool = False) -> discord.Embed:
    title = f"{'Final standings' if final else 'Standings'} · {event.name}"
    embed = discord.Embed(title=title, colour=discord.Colour.orange())
    lines = [
        f"**{s.placement}.** <@{s.submission.user_id}> — **{_fmt(s.submission.score)}** ({breakdown_text(s.submission)})"
        for s in standings
    ]
    embed.description = "\n".join(lines) or "No scores yet."
    embed.set_footer(text=f"Event #{event.id} · {plural(event.turns, 'turn')} · {METHOD_TEXT[event.method]} · "
                          f"{STATUS_TEXT.get(event.status, '')}")
    return embed


def winner_line(event: EventView, winners: list[int]) -> str:
    """The final post's first line: who won (players tied for first all win)."""
    name = f"**{escape(event.name)}**"
    if not winners:
        return f"🏁 {name} has ended with no scores reported: nothing went to the leaderboard."
    who = " and ".join(f"<@{w}>" for w in winners)
    verb = "wins" if len(winners) == 1 else "share the win"
    return limits.clip(f"🏆 {name} has ended: {who} {verb}. The results went to the leaderboard (`/leaderboard`).",
                       limits.CONTENT)


def writeup_pages(sub: SubmissionView) -> list[str]:
    """The write-up cut into pages at line breaks where possible; nothing is dropped."""
    text, pages = sub.writeup, []
    while text:
        if len(text) <= WRITEUP_PAGE_CHARS:
            pages.append(text)
            break
        cut = text.rfind("\n", 0, WRITEUP_PAGE_CHARS)
        cut = cut if cut > WRITEUP_PAGE_CHARS // 2 else WRITEUP_PAGE_CHARS
        pages.append(text[:cut])
        text = text[cut:].lstrip("\n")
    return pages or ["(empty)"]


def writeup_embed(event: EventView, sub: SubmissionView, page: int, pages: list[str]) -> discord.Embed:
    embed = discord.Embed(title=f"Write-up · {event.name}", description=pages[page], colour=discord.Colour.orange())
    embed.add_field(name="Player", value=f"<@{sub.user_id}>")
    embed.add_field(name="Score", value=_fmt(sub.score))
    embed.add_field(name="Breakdown", value=breakdown_text(sub), inline=False)
    if sub.status == "rejected":
        embed.add_field(name="Rejected", value=escape(sub.reject_reason or "-"), inline=False)
    return embed


def _upload_key(raw: str) -> int | None:
    return None if raw == "-" else number("file").parse(raw)


# Everything a score form needs besides what the player types, so any process can take the
# report (after a restart too) and two open forms never share state. The upload key is the
# /goldfish report command's id, or "-" for a write-up typed in the form.
SCORE_FORM: ModalRoute = modal_route(
    "gfs", (number("event"), word("lost", ("0", "1")), word("prevented", ("0", "1")), Part("file", _upload_key)),
)


def submit_custom_id(event_id: int, *, lost_or_drew: bool, prevented: bool, file_key: int | None) -> str:
    return SCORE_FORM.custom_id_for(
        event=event_id, lost=int(lost_or_drew), prevented=int(prevented), file="-" if file_key is None else file_key
    )


PLAY_ORDER_TEXT = {
    "first": "players play first",
    "second": "players play second",
    "flip": "each player flips for who plays first",
}


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def game_end_rule(turns: int, play_order: str) -> str:
    """When the game ends, for an event's turns and agreed play order (FORMATS.md §1)."""
    last = _ordinal(turns + 1)
    if play_order == "second":
        return f"You play second; stop at the start of the goldfish's {last} turn. Extra turns don't count."
    if play_order == "flip":
        return f"Flip for who plays first; stop before the first player's {last} normal turn. Extra turns don't count."
    return f"You play first; stop before your {last} normal turn. Extra turns don't count."


WIN_POINTS = f"{rules.WIN_POINTS:g}"
# Each field's hint says what goes in it (the game's rules are in `/goldfish rules`); each ≤ 100 characters.
LIFE_HINT = "All the life the goldfish lost in your game (it may go below 0): 1 point each."
MILL_HINT = "Cards put from the goldfish's library into its graveyard: ½ point each."
POISON_HINT = "Poison counters the goldfish ended with: 2 points each."
WIN_LABEL = "Win / lose the game effects"
WIN_HINT = f"Effects that would have won you the game or made the goldfish lose it: {WIN_POINTS} each."
WRITEUP_HINT = "Your line of play, turn by turn; everyone can read it. The rules: /goldfish rules"
LOST_WRITEUP_HINT = "How the game went, turn by turn (a lost or drawn game scores 0). Rules: /goldfish rules"
NUMBER_FIELDS = (("Life the goldfish lost", LIFE_HINT, "life_lost", 12), ("Cards milled", MILL_HINT, "cards_milled", 12),
                 ("Poison counters", POISON_HINT, "poison", 12), (WIN_LABEL, WIN_HINT, "game_wins", 6))
WRITEUP_MAX = 4000  # a form's text field holds at most this much
WRITEUP = "writeup"  # the write-up field's id in the form


def form_values(sub: SubmissionView) -> dict[str, str]:
    """A saved report as its form shows it again (a write-up too long for the form is left out)."""
    values = {"life_lost": f"{sub.life_lost:g}", "cards_milled": str(sub.cards_milled), "poison": str(sub.poison),
              "game_wins": str(sub.game_wins)}
    return values | ({WRITEUP: sub.writeup} if len(sub.writeup) <= WRITEUP_MAX else {})


def rules_embed(event: EventView | None) -> discord.Embed:
    """The game rules players must follow (FORMATS.md §1), for `event` or in general."""
    if event is None:
        title = "Goldfish Draft: the game rules"
        length = (
            f"A game lasts **{rules.TURNS_GOLDFISH_CUBE} turns** with the Goldfish Cube, "
            f"**{rules.TURNS_ORDINARY}** with an ordinary card pool. You play first, and the game ends before the "
            f"start of your {_ordinal(rules.TURNS_GOLDFISH_CUBE + 1)} **normal** turn (in a 7-turn game); extra "
            "turns don't count towards the limit. An event may instead agree to play second (the game then ends "
            "at the start of the goldfish's 8th turn) or to flip for it; everyone in one event does the same. "
            f"An organizer may set any length from {rules.MIN_TURNS} to {rules.MAX_TURNS} turns for an event."
        )
    else:
        title = f"Goldfish rules · {event.name}"[:256]
        length = f"A game lasts **{plural(event.turns, 'turn')}**. {game_end_rule(event.turns, event.play_order)}"
    embed = discord.Embed(title=title, colour=discord.Colour.orange())
    embed.description = "\n\n".join([
        length,
        "Your deck is stacked (in any order you like) and you may add any number of basic lands.",
        "**The goldfish** has an infinite library of basic lands: each turn it draws and plays one, and takes "
        "no other action. Whenever it must choose (including which basic land type it plays), it chooses what "
        "minimises your score. It always calls tails.",
        "**Restarting the game resets your score to zero.**",
    ])
    method = event.method if event else "sum"
    embed.add_field(
        name="Scoring",
        value=(
            "1 per point of life lost (life may go below 0) · ½ per card milled · 2 per poison counter · "
            f"{WIN_POINTS} per effect that would have ended the game: each \"you win the game\" effect, and each "
            "\"lose the game\" effect on the goldfish (\"target player loses the game\"). "
            f"This event combines them by **{method}**.\n"
            "0 if you lose or draw, or if an effect (other than the goldfish's emblem) stops you winning or the "
            "goldfish losing at the end; win and lose effects score nothing while it does."
        ),
        inline=False,
    )
    embed.add_field(
        name="Write-ups",
        value=(
            "Describe your line turn by turn; everyone can read it and the organizer can reject a score. "
            "An infinite loop counts once: name the step you performed only once. "
            "`/goldfish flip` and `/goldfish roll` give the coin flips and dice to cite."
        ),
        inline=False,
    )
    return embed


class ScoreModal(StatelessModal):
    """Life lost, cards milled, poison, win effects and the write-up, each with a hint that says what
    goes in it; `values` fills them in (a saved report, or a refused form as typed). A lost or drawn
    game scores 0 whatever the numbers: its form asks only for the write-up (`with_numbers=False`).

    Its submission is answered from the custom_id by :data:`SCORE_FORM`.
    """

    def __init__(self, event: EventView, custom_id: str, *, with_writeup: bool = True, with_numbers: bool = True,
                 values: dict[str, str] | None = None) -> None:
        super().__init__(title=f"Score: {event.name}"[:MODAL_TITLE], custom_id=custom_id)
        values = values or {}
        for label, hint, field_id, length in NUMBER_FIELDS if with_numbers else ():
            number = discord.ui.TextInput(default=values.get(field_id, "0")[:length], max_length=length,
                                          custom_id=field_id, required=False)
            self.add_item(discord.ui.Label(text=label, description=hint, component=number))
        if with_writeup:
            text = discord.ui.TextInput(
                style=discord.TextStyle.paragraph,
                max_length=WRITEUP_MAX,
                custom_id=WRITEUP,
                placeholder="T1: Mountain, Goblin Guide, attack (2)…",
                default=values.get(WRITEUP) or None,
            )
            self.add_item(
                discord.ui.Label(
                    text="Write-up: your line of play, turn by turn",
                    description=WRITEUP_HINT if with_numbers else LOST_WRITEUP_HINT,
                    component=text,
                )
            )
        # Stopped before it is sent, so discord.py does not keep it (keyed by custom_id alone, one
        # player's open form would replace another's) and the listener is the only handler.
        self.stop()


class FormAgainButton(Component, prefix="gfa", parts=(number("form"),)):
    """Under a refused score form's error: opens the form again as the player typed it (`form`: the
    key it is kept under, `service.hold_form`)."""


def form_again_view(key: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Correct the form", style=discord.ButtonStyle.primary,
                                    custom_id=FormAgainButton.custom_id_for(form=key)))
    return view
