"""How a 421 league looks in Discord: the lobby, announcements, match reports with Confirm / Reject,
the menus that ask which deck to claim or take apart, the decklist form, the pool, decks and
standings pages, and the messages the outbox sends (no rules, no SQL). Card names and player names
are user text: always escaped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import service as four_two_one
from bot.games.four_two_one.service import KIND, Announcement, Claim, Decided, LeagueView, league_name
from bot.games.four_two_one.set_lists import SetSummary
from bot.kit import limits
from bot.kit.delivery import Delivery, Outgoing, renders
from bot.kit.dispatch import (
    Component,
    InvalidPayload,
    ModalRoute,
    StatelessModal,
    index,
    modal_route,
    number,
    word,
)
from bot.kit.lobby import lobby_button_type
from bot.kit.paginate import Page, slice_page
from bot.kit.text import escape

MAX_CONTENT = 1900
POOL_ROWS = 40
MAX_SEARCH = 30  # a pool search rides in its page buttons' custom_ids (100 characters at most)
MAX_DECK_ID = 1_000_000
FORM_LIMIT = 4000  # Discord's longest text input
RARITY_LETTER = {"common": "C", "uncommon": "U", "rare": "R", "mythic": "M", "basic": "L"}
OPTION_RULES = {
    "A": "A: alter your deck with unchosen cards (removed cards return to the pool)",
    "B": "B: build an entirely new deck (your old one is set aside)",
    "C": "C: claim a set-aside deck neither of you just used (yours is set aside)",
    "D": "D: the winner sets their deck aside and builds a new one; you keep yours",
}

LobbyButton = lobby_button_type(KIND, "FourTwoOneCog")

# How new sets join a league (FORMATS.md §5 Variants), as `/421 start` offers it.
SCHEDULE_CHOICES = [
    discord.app_commands.Choice(name="standard: by deck count (a set at deck 6, 11, 16…)", value="decks"),
    discord.app_commands.Choice(name="Weatherlight saga: blocks of 3 sets, each new block after 10, 20, 30… points",
                                value="saga"),
]



def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def split_messages(lines: Sequence[str]) -> list[str]:
    return limits.chunk_lines(lines, MAX_CONTENT)


def sets_text(league: LeagueView) -> str:
    return " → ".join(f"`{s.key}` {escape(s.name)} ({s.cards} cards)" for s in league.sets)


# --- the lobby ------------------------------------------------------------------------------------


SCHEDULE_NAMES = {"decks": "standard", "saga": "Weatherlight saga"}


def schedule_text(league: LeagueView) -> str:
    """When each later set joins the pool (and the most decks there will be), as the league's
    schedule says: "`con` at deck 6, `arb` at deck 11 once someone has 10 points"."""
    schedule = league.schedule
    if schedule is None:
        return ""
    if not schedule.additions:
        return f"One set: at most {schedule.first_deck_limit} decks."
    joins = [f"`{s.key}` at deck {a.at_deck}" + (f" once someone has {a.min_score} points" if a.min_score else "")
             for s, a in zip(league.sets[1:], schedule.additions, strict=False)]
    most = max(a.deck_limit for a in schedule.additions)
    kind = SCHEDULE_NAMES.get(schedule.kind, schedule.kind)
    blocks = (f", blocks of {engine.SAGA_BLOCK} sets, each new block after {schedule.points} more points"
              if schedule.kind == "saga" else "")
    return f"New sets ({kind}{blocks}): " + ", ".join(joins) + f"; at most {most} decks."


def lobby_embed(league: LeagueView, note: str | None = None) -> discord.Embed:
    embed = discord.Embed(title=f"{league_name(league.id)} · {league.status}", colour=discord.Colour.dark_gold())
    lines = [f"Sets: {sets_text(league)}", schedule_text(league), f"First to **{league.target_score}** points wins."]
    embed.description = limits.clip("\n".join(line for line in lines if line), limits.DESCRIPTION)
    seated = league.state is not None
    lines = [f"{i + 1}. {mention(u)}" if seated else f"• {mention(u)}" for i, u in enumerate(league.players)]
    title = f"Players ({len(league.players)}/{league.max_seats})" + (" in seat order" if seated else "")
    embed.add_field(name=title, value=limits.fit_lines(lines or ["nobody yet"], limits.FIELD_VALUE), inline=False)
    if league.status == "lobby":
        one_set = " (one set: 2–3 players)" if league.max_seats == engine.MAX_PLAYERS_ONE_SET else ""
        embed.set_footer(text=f"Join with the button or /421 join; an organizer begins with 2–{league.max_seats} "
                              f"players{one_set}. Everyone builds a 60-card deck from the shared pool before round 1.")
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return limits.fit_embed(embed)


# --- announcements --------------------------------------------------------------------------------------


def _pending_line(news: Announcement, e: engine.ActionPending) -> str:
    who = mention(news.user_of(e.seat))
    if e.kind == engine.BUILD:
        return f"🛠️ {who}, build deck {e.deck_number}: `/421 build` (attach your 60 cards, or paste them)."
    if e.kind == engine.ALTER:
        return f"✏️ {who}, alter your deck: `/421 alter` with the full new list (removed cards return to the pool)."
    if e.kind == engine.TAKE_APART:
        return (f"🔨 {who}, a new deck would be one too many: first take apart two decks nobody is using "
                "(the menu below, or `/421 takeapart`).")
    return (f"❓ {who}, you lost Match {e.match}: choose with `/421 choose` — A alter · B new deck · "
            "C claim a set-aside deck · D the winner rebuilds.")


def _round_lines(news: Announcement, e: engine.RoundStarted) -> list[str]:
    lines = [f"📣 **{league_name(news.league_id)} · round {e.round}**"]
    lines += [f"Match {label}: {mention(news.user_of(a))} vs {mention(news.user_of(b))}" for label, a, b in e.matches]
    if e.bye is not None:
        lines.append(f"🛌 {mention(news.user_of(e.bye))} sits out this round: +2 (a bye) once the results are in; "
                     "nobody may claim their deck or take cards from it.")
    lines.append("Report with `/421 report`; your opponent confirms.")
    return lines


def _score_line(news: Announcement, e: engine.ScoreChanged) -> str:
    delta = f"+{e.delta}" if e.delta > 0 else f"−{-e.delta}"
    return f"· {mention(news.user_of(e.seat))} {delta} ({e.reason}) → **{e.score}**"


def _result_line(news: Announcement, e: engine.MatchReported) -> str:
    u = news.user_of
    if e.winner is None:
        line = (f"🤝 Match {e.label}: {mention(u(e.a))} and {mention(u(e.b))} drew: no points, nobody chooses, both "
                "keep their decks.")
    else:
        loser = e.b if e.winner == e.a else e.a
        line = f"🏁 Match {e.label}: {mention(u(e.winner))} beat {mention(u(loser))}."
    return line + _decided_words(news.decided) if news.decided is not None else line


def event_lines(news: Announcement) -> list[str]:
    u = news.user_of
    lines: list[str] = []
    for e in news.events:
        match e:
            case engine.ActionPending():
                lines.append(_pending_line(news, e))
            case engine.RoundStarted():
                lines += _round_lines(news, e)
            case engine.MatchReported():
                lines.append(_result_line(news, e))
            case engine.ScoreChanged():
                lines.append(_score_line(news, e))
            case engine.OptionChosen(seat=seat, option=option, deck_id=deck_id):
                claimed = f" (deck #{deck_id})" if deck_id is not None else ""
                lines.append(f"➡️ {mention(u(seat))} chose option {OPTION_RULES[option]}{claimed}.")
            case engine.DeckSetAside(deck_id=deck_id):
                lines.append(f"🗃️ Deck #{deck_id} is set aside.")
            case engine.DeckClaimed(seat=seat, deck_id=deck_id):
                lines.append(f"🤲 {mention(u(seat))} claims deck #{deck_id}.")
            case engine.SetAdded(seat=seat, name=name, deck_number=number, extra_basics=basics):
                extra = ", ".join(f"{count} {escape(basic)}" for basic, count in basics)
                lines.append(f"📦 {mention(u(seat))} adds **{escape(name)}** to the pool before building deck "
                             f"{number}, and is the first who may use it." + (f" Extra basics: {extra}." if extra else ""))
            case engine.DecksTakenApart(seat=seat, deck_ids=(first, second), cards_returned=returned):
                lines.append(f"🔨 {mention(u(seat))} took apart decks #{first} and #{second}: "
                             f"{returned} cards are back in the pool.")
            case engine.DeckBuilt(seat=seat, deck_id=deck_id, deck_number=number):
                lines.append(f"🆕 {mention(u(seat))} built deck #{deck_id} (deck {number} of the "
                             "league). Every list is public: `/421 decks`.")
            case engine.DeckAltered(seat=seat, deck_id=deck_id, added=added, removed=removed):
                lines.append(f"✏️ {mention(u(seat))} altered deck #{deck_id}: {sum(c for _, c in added)} cards in, "
                             f"{sum(c for _, c in removed)} back to the pool.")
            case engine.LeagueWon() | engine.LeagueEnded():
                lines.append(_end_line(news, e))
    return lines


def _decided_words(decided: Decided) -> str:
    if decided.how == "settled":
        return f" Settled by the organizer {mention(decided.by)} after a dispute."
    return f" Confirmed by the organizer {mention(decided.by)}."


def _end_line(news: Announcement, e: engine.LeagueWon | engine.LeagueEnded) -> str:
    name = league_name(news.league_id)
    if isinstance(e, engine.LeagueWon):
        return f"🏆 **{mention(news.user_of(e.seat))} wins {name} with {e.score} points!**"
    winner = f"{mention(news.user_of(e.winner))} leads alone and wins" if e.winner is not None else "nobody leads alone"
    return f"🏁 An organizer ended {name}: {winner}."


def final_lines(news: Announcement) -> list[str]:
    lines = [f"🏆 **{league_name(news.league_id)} · final standings**"]
    lines += [_end_line(news, e) for e in news.events if isinstance(e, engine.LeagueWon | engine.LeagueEnded)]
    ranked = sorted(range(len(news.users)), key=lambda seat: (-news.scores[seat], seat))
    for place, seat in enumerate(ranked, start=1):
        lines.append(f"{place}. {mention(news.user_of(seat))} — **{news.scores[seat]}** points")
    lines.append("The results were added to the leaderboard (`/leaderboard`).")
    return lines


# --- reports -----------------------------------------------------------------------------------------------


def _claimed(claim: Claim) -> str:
    return "a **draw**" if claim.winner is None else f"that **{mention(claim.winner)} won**"


def claim_text(claim: Claim, *, again: bool = False) -> str:
    """A report waiting for the opponent (`again`: shown once more, its first message may be lost)."""
    still = " (still waiting)" if again else ""
    return (f"📝 {league_name(claim.league_id)}, round {claim.round}, Match {claim.match}: {mention(claim.reporter)} "
            f"reports {_claimed(claim)}{still}. {mention(claim.opponent)}, confirm or reject it (an organizer who "
            "does not play in it can confirm too).")


def waiting_for_you_text(claim: Claim) -> str:
    """The opponent reported while the other player's report waited for them: that report, to answer."""
    return (f"Match {claim.match} already has a report waiting for you: {mention(claim.reporter)} reports "
            f"{_claimed(claim)}. Confirm it, or reject it (the match is then disputed: you both report again, or an "
            "organizer settles it).")


def verdict_text(action: str, user_id: int) -> str:
    if action == "confirm":
        return f"✅ Confirmed by {mention(user_id)}."
    return (f"❌ Rejected by {mention(user_id)}: the match is disputed. Report it again (`/421 report`), both of you, "
            "or an organizer who does not play in it settles it (`/421 settle`).")


class ClaimButton(
    Component, prefix="421r", parts=(number("league"), number("claim"), word("action", ("confirm", "reject"))),
    route=("FourTwoOneCog", "on_claim_button"),
):
    @classmethod
    def make(cls, claim: Claim, action: str) -> ClaimButton:
        style = discord.ButtonStyle.success if action == "confirm" else discord.ButtonStyle.danger
        custom_id = cls.custom_id_for(league=claim.league_id, claim=claim.number, action=action)
        return cls(discord.ui.Button(label=action.title(), style=style, custom_id=custom_id))


def claim_view(claim: Claim) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ("confirm", "reject"):
        view.add_item(ClaimButton.make(claim, action))
    return view


# --- the menus that ask which decks ---------------------------------------------------------------------------


def _deck_option(deck_id: int, state: engine.LeagueState | None) -> discord.SelectOption:
    if state is None:
        return discord.SelectOption(label=f"Deck #{deck_id} (set aside)", value=str(deck_id))
    deck = state.deck(deck_id)
    built_by = state.players[deck.built_by].name
    return discord.SelectOption(label=limits.clip(f"Deck #{deck_id} (set aside), built by {built_by}", limits.SELECT_LABEL),
                                value=str(deck_id))


class TakeApartSelect(
    Component, prefix="421t", parts=(number("league"),), value=index("deck", limit=MAX_DECK_ID), values=2,
    route=("FourTwoOneCog", "on_take_apart"),
):
    """Two decks nobody is using, chosen at once (a select with two values)."""

    @classmethod
    def make(cls, league_id: int, deck_ids: Sequence[int], state: engine.LeagueState | None = None) -> TakeApartSelect:
        select = discord.ui.Select(
            custom_id=cls.custom_id_for(league=league_id), min_values=2, max_values=2,
            placeholder="Choose the two decks to take apart", options=[_deck_option(d, state) for d in deck_ids[:25]],
        )
        return cls(select)

    async def handle(self, interaction: discord.Interaction, *, value: list[int], **args: Any) -> None:
        await super().handle(interaction, decks=value, **args)


class ClaimDeckSelect(
    Component, prefix="421c", parts=(number("league"),), value=index("deck", limit=MAX_DECK_ID),
    route=("FourTwoOneCog", "on_claim_deck"),
):
    """Option C: the set-aside deck to claim."""

    @classmethod
    def make(cls, league: LeagueView, deck_ids: Sequence[int]) -> ClaimDeckSelect:
        select = discord.ui.Select(custom_id=cls.custom_id_for(league=league.id), placeholder="Claim which deck?",
                                   options=[_deck_option(d, league.state) for d in deck_ids[:25]])
        return cls(select)


def take_apart_view(league_id: int, deck_ids: Sequence[int], state: engine.LeagueState | None = None) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(TakeApartSelect.make(league_id, deck_ids, state))
    return view


def claim_deck_view(league: LeagueView, deck_ids: Sequence[int]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ClaimDeckSelect.make(league, deck_ids))
    return view


# --- the decklist form -------------------------------------------------------------------------------------------


DECK_FORM: ModalRoute = modal_route("421d", (number("league"), word("kind", (engine.BUILD, engine.ALTER))),
                                    ("FourTwoOneCog", "on_deck_form"))


def deck_lines(cards: dict[str, int]) -> list[str]:
    return [f"{count} {name}" for name, count in cards.items()]


def deck_modal(league: LeagueView, kind: str, user_id: int) -> discord.ui.Modal:
    """The list as text; altering starts from the deck as it is."""
    state = league.state
    assert state is not None
    default = None
    if kind == engine.ALTER:
        deck_id = state.players[engine.seat_of(state, user_id)].deck
        text = "\n".join(deck_lines(state.deck(deck_id).cards)) if deck_id is not None else ""
        default = text if 0 < len(text) <= FORM_LIMIT else None
    title = f"Build deck {len(state.decks) + 1}" if kind == engine.BUILD else "Alter your deck (option A)"
    modal = StatelessModal(title=title, custom_id=DECK_FORM.custom_id_for(league=league.id, kind=kind))
    modal.add_item(discord.ui.TextInput(
        label="Your 60 cards, one line each: 4 Card Name", style=discord.TextStyle.paragraph, custom_id="list",
        default=default, placeholder="4 Lightning Bolt\n20 Mountain\n…", max_length=FORM_LIMIT,
    ))
    return modal


_AFTER_CHOOSING = {engine.BUILD: " Now build your new deck with `/421 build`.",
                   engine.ALTER: " Now send your altered list with `/421 alter`.",
                   engine.TAKE_APART: " First take apart two unused decks (`/421 takeapart`)."}


def chosen_text(league: LeagueView, option: str, user_id: int) -> str:
    """The loser's option, and what they do next if it is their turn again."""
    step = league.state.step if league.state else None
    mine = step is not None and league.user_of(step.seat) == user_id
    return f"You chose {OPTION_RULES[option]}." + (_AFTER_CHOOSING.get(step.kind, "") if mine else "")


def deck_done_text(league: LeagueView, events: Sequence[engine.Event]) -> str:
    built = next((e for e in events if isinstance(e, engine.DeckBuilt | engine.DeckAltered)), None)
    if isinstance(built, engine.DeckBuilt):
        return f"Deck #{built.deck_id} is built (deck {built.deck_number} of {league_name(league.id)}); it is public."
    if isinstance(built, engine.DeckAltered):
        return f"Deck #{built.deck_id} is altered; the cards you removed are back in the pool."
    return "Done."


# --- pages -------------------------------------------------------------------------------------------------------------


def pool_key(league_id: int, search: str | None) -> str:
    return f"{league_id}:{search or ''}"


def parse_pool_key(key: str) -> tuple[int, str | None]:
    league, _, search = key.partition(":")
    if not league.isascii() or not league.isdigit() or len(league) > 19 or len(search) > MAX_SEARCH:
        raise InvalidPayload()
    return int(league), search or None


def _next_set_text(state: engine.LeagueState) -> str:
    added = ", ".join(f"`{s.code}`" for s in state.sets[: state.sets_added])
    if state.sets_added >= len(state.sets):
        return f"In the pool: {added} (every set)."
    addition = (state.settings.additions or [])[state.sets_added - 1]
    gate = f", once someone has {addition.min_score} points" if addition.min_score else ""
    return f"In the pool: {added}. `{state.sets[state.sets_added].code}` joins at deck {addition.at_deck}{gate}."


def pool_page(league: LeagueView, page: int, search: str | None) -> Page:
    state = league.state
    title = f"{league_name(league.id)} · pool" + (f" · “{search}”" if search else "")
    embed = discord.Embed(title=limits.clip(title, limits.TITLE), colour=discord.Colour.dark_gold())
    if state is None:
        embed.description = "The league has not begun: the pool is dealt when it does."
        return Page(embed, 0, 1)
    cards = engine.pool_cards(state, search)
    shown, page, pages = slice_page(cards, page, POOL_ROWS)
    lines = [f"`{c.available}/{c.total}` {escape(c.name)} · {RARITY_LETTER.get(c.rarity, '?')}" for c in shown]
    embed.description = limits.fit_lines(lines, limits.DESCRIPTION) if lines else "No available card matches that."
    available, total = sum(state.pool.values()), sum(engine.total_copies(state).values())
    embed.add_field(name="Unchosen cards", value=f"{available} of {total} copies ({len(cards)} names listed here). "
                                                 "Every other copy is in exactly one deck.", inline=False)
    embed.add_field(name="Sets", value=_next_set_text(state), inline=False)
    return Page(limits.fit_embed(embed), page, pages)


def _deck_status(league: LeagueView, deck_id: int) -> str:
    state = league.state
    assert state is not None
    holder = engine.holder_of(state, deck_id)
    if holder is None:
        return "set aside"
    if holder == state.bye:
        return f"{mention(league.user_of(holder))}'s, sitting out: untouchable"
    return f"in use by {mention(league.user_of(holder))}"


def decks_page(league: LeagueView, page: int) -> Page:
    state = league.state
    embed = discord.Embed(title=f"{league_name(league.id)} · decks", colour=discord.Colour.dark_gold())
    if state is None or not state.decks:
        embed.description = "No deck has been built yet."
        return Page(embed, 0, 1)
    shown, page, pages = slice_page(state.decks, page, 1)
    deck = shown[0]
    embed.title = f"{league_name(league.id)} · deck #{deck.id} ({sum(deck.cards.values())} cards)"
    embed.description = limits.fit_lines([escape(line) for line in deck_lines(deck.cards)], limits.DESCRIPTION)
    embed.add_field(name="Used by", value=f"{_deck_status(league, deck.id)} · built by "
                                          f"{mention(league.user_of(deck.built_by))}", inline=False)
    overview = [f"#{d.id}: {_deck_status(league, d.id)}" for d in state.decks]
    limit = engine.deck_limit(state)
    embed.add_field(name=f"Every deck ({len(state.decks)} of at most {limit})",
                    value=limits.fit_lines(overview, limits.FIELD_VALUE), inline=False)
    return Page(limits.fit_embed(embed), page, pages)


def _waiting_lines(league: LeagueView) -> list[str]:
    state = league.state
    assert state is not None
    lines = []
    for action in engine.pending_actions(state):
        who = " and ".join(mention(league.user_of(s)) for s in action.seats)
        what = {
            engine.BUILD: f"builds deck {action.deck_number}", engine.ALTER: "alters their deck (option A)",
            engine.TAKE_APART: "takes apart two unused decks", engine.CHOOSE: f"chooses an option (lost Match {action.match})",
            engine.REPORT: f"report Match {action.match}",
        }[action.kind]
        if action.kind == engine.REPORT and action.match in league.disputes:
            what += " (disputed: report again, or an organizer settles it with `/421 settle`)"
        lines.append(f"{who} {what}")
    return lines or ["nobody: the league is over"]


def standings_embed(league: LeagueView) -> discord.Embed:
    embed = discord.Embed(title=f"{league_name(league.id)} · standings", colour=discord.Colour.dark_gold())
    state = league.state
    if state is None:
        embed.description = "The league has not begun yet."
        return embed
    lines = []
    for place, p in enumerate(engine.standings(state), start=1):
        deck = f"deck #{p.deck}" if p.deck is not None else "no deck"
        byes = f" · {p.byes} bye{'s' if p.byes != 1 else ''}" if p.byes else ""
        lines.append(f"{place}. {mention(p.user_id)} — **{p.score}** points · {deck}{byes}")
    embed.description = limits.fit_lines(lines, limits.DESCRIPTION)
    embed.add_field(name="Target", value=f"{state.settings.target_score} points", inline=True)
    embed.add_field(name="Round", value=str(state.round) if state.round else "building the first decks", inline=True)
    if state.bye is not None and state.phase == "playing":
        embed.add_field(name="Sitting out", value=mention(league.user_of(state.bye)), inline=True)
    embed.add_field(name="Waiting for", value=limits.fit_lines(_waiting_lines(league), limits.FIELD_VALUE), inline=False)
    embed.add_field(name="Sets", value=_next_set_text(state), inline=False)
    return limits.fit_embed(embed)


def set_list_lines(sets: Sequence[SetSummary]) -> list[str]:
    source = {"text": "uploaded list", "csv": "uploaded CSV", "scryfall": "Scryfall"}
    return [f"`{s.key}` — {escape(s.name)}: {s.card_count} cards ({source.get(s.source, s.source)})" for s in sets]


# --- what the outbox sends (queued by the service with the change that causes it) ----------------------
# Each payload is a snapshot, so a late send (the sweeper's, after a crash) shows what happened then.


@renders(four_two_one.ANNOUNCE, Announcement)
async def announce(news: Announcement, ctx: Delivery) -> Outgoing | None:
    chunks = split_messages(event_lines(news))
    if not chunks:
        return None
    # The take-apart menu rides on the announcement that asks for it; only the player called to
    # act (and a new round's players) are pinged.
    view = take_apart_view(news.league_id, news.take_apart) if len(news.take_apart) >= 2 else None
    return Outgoing(content=chunks[0], continued=chunks[1:], view=view,
                    allowed_mentions=limits.ping(*news.ping) if news.ping else None)


@renders(four_two_one.FINAL, Announcement)
async def final(news: Announcement, ctx: Delivery) -> Outgoing:
    chunks = split_messages(final_lines(news))
    return Outgoing(content=chunks[0], continued=chunks[1:])
