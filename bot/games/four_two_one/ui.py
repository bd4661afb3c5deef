"""How a 421 league looks in Discord: the lobby, announcements, match reports with Confirm / Dispute,
the menus that ask which deck to claim or take apart, the decklist form, the pool, decks and
status pages, and the messages the outbox sends (no rules, no SQL). Card names and player names
are user text: always escaped."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import discord

from bot.features.sets.service import SetSummary
from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import service as four_two_one
from bot.games.four_two_one.service import (
    KIND,
    Announcement,
    Claim,
    Decided,
    LeagueView,
    Outcome,
    ShownMenu,
    league_name,
)
from bot.kit import claims, claims_ui, limits
from bot.kit.autocomplete import MATCH_RESULTS
from bot.kit.delivery import Delivery, Outgoing, Renderers
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
from bot.kit.errors import UserError
from bot.kit.lobby import lobby_button_type
from bot.kit.paginate import Page, slice_page
from bot.kit.text import escape, plural, plural_word
from bot.web.buttons import event_view, view_of

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

LobbyButton = lobby_button_type(KIND)

# How new sets join a league (FORMATS.md §5 Variants), as `/421 start` offers it.
SCHEDULE_CHOICES = [
    discord.app_commands.Choice(name="standard: by deck count (a set joins with the 6th, 11th, 16th… deck)",
                                value="decks"),
    discord.app_commands.Choice(name="Weatherlight saga: blocks of 3 sets, each new block after 10, 20, 30… points",
                                value="saga"),
]



def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def signed(number: int) -> str:
    """A number as users see it: a negative one with the minus sign (−1), never a hyphen."""
    return f"−{-number}" if number < 0 else str(number)


def points(score: int) -> str:
    """ "**−1** points", "**1** point", "**21** points"."""
    return f"**{signed(score)}** {plural_word(score, 'point')}"


STATUS_WORDS = {four_two_one.STATUSES.lobby: "Open for players", four_two_one.STATUSES.running: "In progress",
                four_two_one.STATUSES.finished: "Finished", four_two_one.STATUSES.cancelled: "Cancelled"}


def split_messages(lines: Sequence[str]) -> list[str]:
    return limits.chunk_lines(lines, MAX_CONTENT)


def sets_text(league: LeagueView) -> str:
    return " → ".join(f"`{s.key}` {escape(s.name)} ({plural(s.cards, 'card')})" for s in league.sets)


# --- the lobby ------------------------------------------------------------------------------------


SCHEDULE_NAMES = {"decks": "standard", "saga": "Weatherlight saga"}


def ordinal(number: int) -> str:
    """ "1st", "2nd", "3rd", "6th", "11th", "21st"."""
    last = number % 10 if number % 100 not in (11, 12, 13) else 0
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(last, 'th')}"


def _joins(at_deck: int, min_score: int) -> str:
    """When a set joins, by the deck it comes with: "joins with the 6th deck" ("once the league has
    5 decks" read as due already in a league of 5; "deck 6" would be a second number for decks, which
    are named by their own, "deck #13")."""
    gate = (f" if someone has {plural(min_score, 'point')} by then, else with the first deck after"
            if min_score else "")
    return f"joins with the {ordinal(at_deck)} deck{gate}"


def schedule_text(league: LeagueView) -> str:
    """When each later set joins the pool (and the most decks there will be), as the league's
    schedule says: "`con` joins with the 6th deck, `arb` joins with the 11th deck if someone has 10
    points by then, else with the first deck after"; whoever builds that deck adds the set."""
    schedule = league.schedule
    if schedule is None:
        return ""
    if not schedule.additions:
        return f"One set: at most {plural(schedule.first_deck_limit, 'deck')}."
    joins = [f"`{s.key}` {_joins(a.at_deck, a.min_score)}" for s, a in zip(league.sets[1:], schedule.additions,
                                                                             strict=False)]
    most = max(a.deck_limit for a in schedule.additions)
    kind = SCHEDULE_NAMES.get(schedule.kind, schedule.kind)
    blocks = (f", blocks of {engine.SAGA_BLOCK} sets, each new block after {plural(schedule.points or 0, 'more point')}"
              if schedule.kind == "saga" else "")
    return (f"New sets ({kind}{blocks}), each added by whoever builds the deck it joins with: " + ", ".join(joins)
            + f"; at most {plural(most, 'deck')}.")


def lobby_embed(league: LeagueView, note: str | None = None) -> discord.Embed:
    status = STATUS_WORDS.get(league.status, league.status.title())
    embed = discord.Embed(title=f"{league_name(league.id)} · {status}", colour=discord.Colour.dark_gold())
    lines = [f"Sets: {sets_text(league)}", schedule_text(league), f"First to {points(league.target_score)} wins."]
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


# What a loser's option means, told to the channel in the third person ({loser}, {winner}: mentions).
OPTION_NEWS = {
    "A": "{loser} alters their deck with unchosen cards (removed cards return to the pool)",
    "B": "{loser} builds an entirely new deck (their old one is set aside)",
    "C": "{loser} claims a set-aside deck neither player just used (their own is set aside)",
    "D": "{winner} sets their winning deck aside and builds a new one; {loser} keeps their deck",
}


def _pending_line(news: Announcement, e: engine.ActionPending, live: bool = True) -> str:
    """Who acts next, in the third person (they are the one pinged); `live`: the post still has its button."""
    who = mention(news.user_of(e.seat))
    if e.kind == engine.BUILD:
        deck = f"deck #{e.deck_id}" if e.deck_id is not None else "a new deck"
        return f"🛠️ {who} builds {deck} next: `/421 build` (the 60 cards attached, or pasted in the form)."
    if e.kind == engine.ALTER:
        return (f"✏️ {who} alters their deck next: `/421 alter` with the full new list (removed cards return to "
                "the pool).")
    if e.kind == engine.TAKE_APART:
        return (f"🔨 A new deck would be one too many: {who} first takes apart two decks nobody is using "
                "(the menu below, or `/421 takeapart`).")
    how = " with the button below (or `/421 choose`)" if live else ""
    return (f"❓ {who} lost Match {e.match} and chooses next{how}: A alter · B new deck · C claim a set-aside deck · "
            "D the winner rebuilds.")


def _round_lines(news: Announcement, e: engine.RoundStarted, live: bool = True) -> list[str]:
    lines = [f"📣 **{league_name(news.league_id)} · round {e.round}**"]
    lines += [f"Match {label}: {mention(news.user_of(a))} vs {mention(news.user_of(b))}" for label, a, b in e.matches]
    if e.bye is not None:
        lines.append(f"🛌 {mention(news.user_of(e.bye))} sits out this round: +2 (a bye) once the results are in; "
                     "nobody may claim their deck or take cards from it.")
    if live:  # the how-to goes with the buttons, once the round is over
        lines.append("Each player reports their match with the buttons below (or `/421 report`); the opponent "
                     "confirms. The loser then chooses A–D here too.")
    return lines


def _score_line(news: Announcement, e: engine.ScoreChanged) -> str:
    delta = f"+{e.delta}" if e.delta > 0 else signed(e.delta)
    return f"· {mention(news.user_of(e.seat))} {delta} ({e.reason}) → **{signed(e.score)}**"


def _option_line(news: Announcement, e: engine.OptionChosen) -> str:
    loser = mention(news.user_of(e.seat))
    winner = mention(news.user_of(e.winner)) if e.winner is not None else "the winner"
    return f"➡️ {loser} chose option {e.option}: " + OPTION_NEWS[e.option].format(loser=loser, winner=winner) + "."


def _result_line(news: Announcement, e: engine.MatchReported) -> str:
    u = news.user_of
    if e.winner is None:
        line = (f"🤝 Match {e.label}: {mention(u(e.a))} and {mention(u(e.b))} drew: no points, nobody chooses, both "
                "keep their decks.")
    else:
        loser = e.b if e.winner == e.a else e.a
        line = f"🏁 Match {e.label}: {mention(u(e.winner))} beat {mention(u(loser))}."
    return line + _decided_words(news.decided) if news.decided is not None else line


def event_lines(news: Announcement, *, live: bool = True) -> list[str]:
    """The lines of an announcement; `live`: as posted, with its buttons (else as shown once they went)."""
    u = news.user_of
    lines: list[str] = []
    for e in news.events:
        match e:
            case engine.ActionPending():
                lines.append(_pending_line(news, e, live))
            case engine.RoundStarted():
                lines += _round_lines(news, e, live)
            case engine.MatchReported():
                lines.append(_result_line(news, e))
            case engine.ScoreChanged():
                lines.append(_score_line(news, e))
            case engine.OptionChosen():
                lines.append(_option_line(news, e))
            case engine.DeckSetAside(deck_id=deck_id):
                lines.append(f"🗃️ Deck #{deck_id} is set aside.")
            case engine.DeckClaimed(seat=seat, deck_id=deck_id):
                lines.append(f"🤲 {mention(u(seat))} claims deck #{deck_id}.")
            case engine.SetAdded(seat=seat, name=name, deck_number=number, extra_basics=basics):
                extra = ", ".join(f"{count} {escape(basic)}" for basic, count in basics)
                lines.append(f"📦 The league has {plural(number - 1, 'deck')}: {mention(u(seat))} adds "
                             f"**{escape(name)}** to the pool before building the next one, and is the first who may "
                             "use it." + (f" Extra basics: {extra}." if extra else ""))
            case engine.DecksTakenApart(seat=seat, deck_ids=(first, second), cards_returned=returned):
                lines.append(f"🔨 {mention(u(seat))} took apart decks #{first} and #{second}: "
                             f"{plural(returned, 'card')} {'is' if returned == 1 else 'are'} back in the pool.")
            case engine.DeckBuilt(seat=seat, deck_id=deck_id):
                lines.append(f"🆕 {mention(u(seat))} built deck #{deck_id}. Every list is public: `/421 decks`.")
            case engine.DeckAltered(seat=seat, deck_id=deck_id, added=added, removed=removed):
                lines.append(f"✏️ {mention(u(seat))} altered deck #{deck_id}: "
                             f"{plural(sum(c for _, c in added), 'card')} in, {sum(c for _, c in removed)} back to "
                             "the pool.")
            case engine.ChoiceWaits(seat=seat, match=label, leader=leader):
                lines.append(f"⏳ {mention(u(leader))} has reached the target: {mention(u(seat))} does not choose for "
                             f"Match {label} yet, as the round's last result may end the league.")
            case engine.LeagueWon() | engine.LeagueEnded():
                lines.append(_end_line(news, e))
    return lines


def _decided_words(decided: Decided) -> str:
    if decided.how == "settled":
        return f" Settled by the organizer {mention(decided.by)} after a dispute."
    if decided.absent is not None:
        return f" Confirmed for {mention(decided.absent)} (absent) by the organizer {mention(decided.by)}."
    return f" Confirmed by the organizer {mention(decided.by)}."


def _end_line(news: Announcement, e: engine.LeagueWon | engine.LeagueEnded) -> str:
    name = league_name(news.league_id)
    if isinstance(e, engine.LeagueWon):
        return f"🏆 **{mention(news.user_of(e.seat))} wins {name} with {plural(e.score, 'point')}!**"
    winner = f"{mention(news.user_of(e.winner))} leads alone and wins" if e.winner is not None else "nobody leads alone"
    return f"🏁 An organizer ended {name}: {winner}."


def final_lines(news: Announcement) -> list[str]:
    # One headline: how it ended (the winner's trophy line) when the events say so, then the standings.
    ends = [_end_line(news, e) for e in news.events if isinstance(e, engine.LeagueWon | engine.LeagueEnded)]
    lines = [*ends, "The final standings:"] if ends else [f"🏆 **{league_name(news.league_id)} · final standings**"]
    ranked = sorted(range(len(news.users)), key=lambda seat: (-news.scores[seat], seat))
    for place, seat in enumerate(ranked, start=1):
        lines.append(f"{place}. {mention(news.user_of(seat))} — {points(news.scores[seat])}")
    lines.append("The results were added to the leaderboard (`/leaderboard`).")
    return lines


# --- reports -----------------------------------------------------------------------------------------------


def _what(claim: Claim) -> str:
    return f"{league_name(claim.league_id)}, round {claim.round}, Match {claim.match}"


def _result(claim: Claim) -> str:
    return "a **draw**" if claim.winner is None else f"**{mention(claim.winner)} won**"


def claim_text(claim: Claim, *, again: bool = False) -> str:
    """A report waiting for the opponent (`again`: shown once more, its first message may be lost)."""
    return claims_ui.waiting_text(_what(claim), claim.reporter, _result(claim), claim.opponent, again=again)


def waiting_for_you_text(claim: Claim) -> str:
    """The opponent reported while the other player's report waited for them: that report, to answer."""
    return (f"Match {claim.match} already has a report waiting for you: {mention(claim.reporter)} reports "
            f"{_result(claim)}. Confirm it, or dispute it (the match is then disputed: you both report again, or an "
            "organizer settles it).")


def answered(outcome: Outcome) -> claims_ui.Answered:
    """A report answered by its button: the message's new text (the kit's words) and, for a dispute, the call."""
    claim, call = outcome.claim, outcome.call
    assert claim is not None
    return claims_ui.Answered(claims_ui.said(outcome.words), call,
                              dispute_call_text(claim, call.text()) if call is not None else "")


def dispute_call_text(claim: Claim, call_text: str) -> str:
    """The channel's call to the referees of a disputed match."""
    return (f"⚠️ {league_name(claim.league_id)}, Match {claim.match} is disputed: {call_text} decides it with "
            f"`/421 settle match:{claim.match}` (or its players report it again).")


async def _answer(press: claims_ui.Press, for_absent: bool) -> claims_ui.Answered:
    if press.action != claims.CONFIRM:  # Dispute ("reject" on buttons from before issue 34)
        return answered(await four_two_one.dispute(press.db, press.table, press.claim, press.actor,
                                                   answered_in=press.pressed))
    return answered(await four_two_one.confirm(press.db, press.table, press.claim, press.actor, for_absent=for_absent,
                                               answered_in=press.pressed))


# The kit's report buttons, answered (a late click shows what the kit's book says became of the report).
ANSWERING = claims_ui.Answering(four_two_one.KIND, _answer, claims_ui.late_of(four_two_one.GAMES, four_two_one.RULES))


def claim_view(claim: Claim) -> discord.ui.View:
    return claims_ui.answer_view("421", claim.league_id, claim.number)


# --- the buttons on a round's post (issue 35 item 9: report and choose without typing) -------------------


class ReportButton(Component, prefix="421r", parts=(number("league"), word("result", tuple(MATCH_RESULTS)))):
    """A round post's [Report: I won] [Report: I lost] [Report: Draw]: the same report as `/421 report`."""


class ChooseButton(Component, prefix="421o", parts=(number("league"),)):
    """[Choose A–D], for the loser: the menu of options, the same choice as `/421 choose`."""


class OptionSelect(Component, prefix="421p", parts=(number("league"),), value=word("option", tuple(OPTION_RULES))):
    """The loser's option A–D (C then asks which set-aside deck)."""


CHOOSE_LABEL = "Lost? Choose A–D"


def choose_button(league_id: int) -> ChooseButton:
    return ChooseButton(discord.ui.Button(label=CHOOSE_LABEL, custom_id=ChooseButton.custom_id_for(league=league_id)))


def round_items(league_id: int) -> list[discord.ui.Item]:
    """A round post's buttons: each player reports their match, and its loser chooses, from here."""
    reports = [ReportButton(discord.ui.Button(label=f"Report: {said[0].upper()}{said[1:]}", style=discord.ButtonStyle.primary,
                                              custom_id=ReportButton.custom_id_for(league=league_id, result=result)))
               for result, said in MATCH_RESULTS.items()]
    return [*reports, choose_button(league_id)]


def option_view(league_id: int) -> discord.ui.View:
    """The loser's menu of options, shown to them alone."""
    select = discord.ui.Select(custom_id=OptionSelect.custom_id_for(league=league_id), placeholder="Your option",
                               options=[discord.SelectOption(label=limits.clip(text, limits.SELECT_LABEL), value=key)
                                        for key, text in OPTION_RULES.items()])
    view = discord.ui.View(timeout=None)
    view.add_item(OptionSelect(select))
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


DECK_FORM: ModalRoute = modal_route("421d", (number("league"), word("kind", (engine.BUILD, engine.ALTER))))


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
    title = f"Build deck #{state.next_deck_id}" if kind == engine.BUILD else "Alter your deck (option A)"
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


def sideboard_text(ignored: int) -> str:
    """What a decklist's sideboard became: nothing (a 421 deck is its 60 cards)."""
    if not ignored:
        return ""
    return f" The sideboard ({plural(ignored, 'card')}) was ignored: a 421 deck is its 60 cards."


def deck_done_text(league: LeagueView, events: Sequence[engine.Event], ignored: int = 0) -> str:
    built = next((e for e in events if isinstance(e, engine.DeckBuilt | engine.DeckAltered)), None)
    if isinstance(built, engine.DeckBuilt):
        text = f"Deck #{built.deck_id} of {league_name(league.id)} is built; its list is public."
    elif isinstance(built, engine.DeckAltered):
        text = f"Deck #{built.deck_id} is altered; the cards you removed are back in the pool."
    else:
        text = "Done."
    return text + sideboard_text(ignored)


# --- pages and files ----------------------------------------------------------------------------------------------------


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
    return f"In the pool: {added}. `{state.sets[state.sets_added].code}` joins {_joins(addition.at_deck, addition.min_score)}."


def pool_page(league: LeagueView, page: int, search: str | None) -> Page:
    """The pool by name, every card with its copies left of its copies in the league: a card all
    used up shows `0/4`."""
    state = league.state
    title = f"{league_name(league.id)} · pool" + (f" · “{search}”" if search else "")
    embed = discord.Embed(title=limits.clip(title, limits.TITLE), colour=discord.Colour.dark_gold())
    if state is None:
        embed.description = "The league has not begun: the pool is dealt when it does."
        return Page(embed, 0, 1)
    cards = engine.pool_cards(state, search, include_used_up=True)
    shown, page, pages = slice_page(cards, page, POOL_ROWS)
    lines = [f"`{c.available}/{c.total}` {escape(c.name)} · {RARITY_LETTER.get(c.rarity, '?')}" for c in shown]
    embed.description = limits.fit_lines(lines, limits.DESCRIPTION) if lines else "No card of the league matches that."
    available, total = sum(state.pool.values()), sum(engine.total_copies(state).values())
    embed.add_field(name="Copies left / in the league",
                    value=f"{available} of {plural(total, 'copy', 'copies')} are left ({plural(len(cards), 'name')} "
                          "listed here). Every other copy is in exactly one deck. The whole pool as a file: "
                          "`/421 pool file:True`.", inline=False)
    embed.add_field(name="Sets", value=_next_set_text(state), inline=False)
    return Page(limits.fit_embed(embed), page, pages)


def _holder_name(state: engine.LeagueState, deck_id: int) -> str:
    holder = engine.holder_of(state, deck_id)
    if holder is None:
        return "set aside"
    name = state.players[holder].name
    return f"{name}'s, sitting out" if holder == state.bye else f"in use by {name}"


def pool_files(league: LeagueView) -> dict[str, str]:
    """The pool as two text files: `pool-arena.txt`, the copies left in the format deck builders
    and Arena import (`4 Card Name`), and `pool.txt`, every card of the league with its copies left
    of its copies, rarity and the decks that hold the others (a card all used up too). Files are
    plain text: names are not escaped."""
    state = league.state
    assert state is not None
    cards = engine.pool_cards(state, include_used_up=True)
    arena = [f"{c.available} {c.name}" for c in cards if c.available]
    held: dict[str, list[str]] = {}
    for deck in state.decks:
        for name, count in deck.cards.items():
            held.setdefault(name, []).append(f"{count} in deck #{deck.id} ({_holder_name(state, deck.id)})")
    available, total = sum(state.pool.values()), sum(engine.total_copies(state).values())
    plain = [f"{league_name(league.id)}: the pool, {available} of {plural(total, 'copy', 'copies')} left.",
             "Copies left/in the league, card name, rarity; where the other copies are.", ""]
    for c in cards:
        where = f" — {'; '.join(held[c.name])}" if c.name in held else ""
        plain.append(f"{c.available}/{c.total} {c.name} ({c.rarity}){where}")
    return {f"pool-{league.id}-arena.txt": "\n".join(arena) + "\n", f"pool-{league.id}.txt": "\n".join(plain) + "\n"}


POOL_FILE_HELP = "The pool as text files: the copies left in Arena's format, and every card with its copies."


def handed_back(problems: str, kind: str, typed: str) -> dict[str, Any]:
    """A list typed in the form and refused: why, and the list attached to fix and send again."""
    text = f"{problems}\nYour list is attached: fix it and send it with `/421 {kind} decklist:`."
    return {"content": limits.clip(text, limits.CONTENT), "files": _files({"decklist.txt": typed})}


def taken_apart_text(deck_ids: Sequence[int], league: LeagueView) -> str:
    number = league.state.next_deck_id if league.state else None
    return f"Decks #{deck_ids[0]} and #{deck_ids[1]} are taken apart: now build deck #{number} with `/421 build`."


def claimable_choices(state: engine.LeagueState | None, user_id: int,
                      current: str | None) -> list[discord.app_commands.Choice[int]]:
    """Option C's autocomplete: the decks the loser now choosing may claim (nobody else gets any)."""
    if state is None or state.step is None or state.players[state.step.seat].user_id != user_id:
        return []
    typed = str(current or "").strip().lstrip("#")
    return [discord.app_commands.Choice(name=f"Deck #{d.id} (set aside)", value=d.id)
            for d in engine.claimable_decks(state) if str(d.id).startswith(typed)][:25]


def _files(texts: dict[str, str]) -> list[discord.File]:
    return [discord.File(io.BytesIO(text.encode()), filename=name) for name, text in texts.items()]


def pool_file_message(league: LeagueView) -> dict[str, Any]:
    """`/421 pool file:True`: the pool's two files, and what they hold."""
    if league.state is None:
        raise UserError("The league has not begun: the pool is dealt when it does.")
    return {"content": f"The pool of {league_name(league.id)}: the `-arena` file lists the copies left as `4 Card "
                       "Name` lines, for a deck builder or Arena; the other lists every card with its copies left of "
                       "its copies in the league (`0/4`: all in decks) and which decks hold the others.",
            "files": _files(pool_files(league))}


def decks_file_message(league: LeagueView) -> dict[str, Any]:
    """`/421 decks file:True`: every deck's list in one file."""
    if league.state is None or not league.state.decks:
        raise UserError("No deck has been built yet.")
    return {"content": f"Every deck of {league_name(league.id)}, its list and who uses it.",
            "files": _files(decks_file(league))}


def decks_file(league: LeagueView) -> dict[str, str]:
    """Every deck's list in one text file (`4 Card Name` lines, each deck under its number)."""
    state = league.state
    assert state is not None
    lines = [f"{league_name(league.id)}: {plural(len(state.decks), 'deck')}.", ""]
    for deck in state.decks:
        built_by = state.players[deck.built_by].name
        lines += [f"Deck #{deck.id} ({_holder_name(state, deck.id)}, built by {built_by})", *deck_lines(deck.cards), ""]
    return {f"decks-{league.id}.txt": "\n".join(lines)}


def _deck_status(league: LeagueView, deck_id: int) -> str:
    state = league.state
    assert state is not None
    holder = engine.holder_of(state, deck_id)
    if holder is None:
        return "set aside"
    if holder == state.bye:
        return f"{mention(league.user_of(holder))}'s, sitting out: untouchable"
    return f"in use by {mention(league.user_of(holder))}"


DECKS_PAGE_BUDGET = 5200  # characters of deck fields on one page (an embed holds 6000 in all)
DECKS_PER_PAGE = 12


def _deck_field(league: LeagueView, deck: engine.Deck) -> tuple[str, str]:
    """A deck as an embed field: its number and size, who uses it, and its whole list (as much as
    a field holds; the rest counted, the file has it all)."""
    name = f"Deck #{deck.id} · {plural(sum(deck.cards.values()), 'card')}"
    head = f"{_deck_status(league, deck.id)} · built by {mention(league.user_of(deck.built_by))}"
    lines = [escape(line) for line in deck_lines(deck.cards)]
    value = "\n".join([head, *lines])
    if len(value) <= limits.FIELD_VALUE:
        return name, value
    shown = [head]
    for count, line in enumerate(lines):
        more = f"…and {plural(len(lines) - count, 'more line')}: `/421 decks file:True`"
        if len("\n".join([*shown, line, more])) > limits.FIELD_VALUE:
            return name, "\n".join([*shown, more])
        shown.append(line)
    return name, limits.clip("\n".join(shown), limits.FIELD_VALUE)


def _deck_pages(league: LeagueView) -> list[list[tuple[str, str]]]:
    """The decks' fields packed into as few pages as the embeds hold."""
    state = league.state
    assert state is not None
    pages: list[list[tuple[str, str]]] = [[]]
    used = 0
    for deck in state.decks:
        field = _deck_field(league, deck)
        size = len(field[0]) + len(field[1])
        if pages[-1] and (used + size > DECKS_PAGE_BUDGET or len(pages[-1]) >= DECKS_PER_PAGE):
            pages.append([])
            used = 0
        pages[-1].append(field)
        used += size
    return pages


def decks_page(league: LeagueView, page: int) -> Page:
    """Every deck of the league, on as few pages as the lists fit, each with who uses it."""
    state = league.state
    embed = discord.Embed(title=f"{league_name(league.id)} · decks", colour=discord.Colour.dark_gold())
    if state is None or not state.decks:
        embed.description = "No deck has been built yet."
        return Page(embed, 0, 1)
    pages = _deck_pages(league)
    page = min(max(page, 0), len(pages) - 1)
    limit = engine.deck_limit(state)
    embed.description = (f"{plural(len(state.decks), 'deck')} (at most {limit} now). Every list is public; all of "
                         "them as a file: `/421 decks file:True`.")
    for name, value in pages[page]:
        embed.add_field(name=name, value=value, inline=True)
    return Page(limits.fit_embed(embed), page, len(pages))


def _waiting_lines(league: LeagueView) -> list[str]:
    state = league.state
    assert state is not None
    lines = []
    for action in engine.pending_actions(state):
        who = " and ".join(mention(league.user_of(s)) for s in action.seats)
        what = {
            engine.BUILD: f"builds deck #{action.deck_id}", engine.ALTER: "alters their deck (option A)",
            engine.TAKE_APART: "takes apart two unused decks", engine.CHOOSE: f"chooses an option (lost Match {action.match})",
            engine.REPORT: f"report Match {action.match}",
        }[action.kind]
        if action.kind == engine.REPORT and action.match in league.disputes:
            what += " (disputed: report again, or an organizer settles it with `/421 settle`)"
        lines.append(f"{who} {what}")
    return lines or ["nobody: the league is over"]


def status_embed(league: LeagueView) -> discord.Embed:
    embed = discord.Embed(title=f"{league_name(league.id)} · status", colour=discord.Colour.dark_gold())
    state = league.state
    if state is None:
        embed.description = "The league has not begun yet."
        return embed
    lines = []
    for place, p in enumerate(engine.standings(state), start=1):
        deck = f"deck #{p.deck}" if p.deck is not None else "no deck"
        byes = f" · {plural(p.byes, 'bye')}" if p.byes else ""
        lines.append(f"{place}. {mention(p.user_id)} — {points(p.score)} · {deck}{byes}")
    embed.description = limits.fit_lines(lines, limits.DESCRIPTION)
    embed.add_field(name="Target", value=plural(state.settings.target_score, "point"), inline=True)
    embed.add_field(name="Round", value=str(state.round) if state.round else "building the first decks", inline=True)
    if state.bye is not None and state.phase == "playing":
        embed.add_field(name="Sitting out", value=mention(league.user_of(state.bye)), inline=True)
    embed.add_field(name="Waiting for", value=limits.fit_lines(_waiting_lines(league), limits.FIELD_VALUE), inline=False)
    embed.add_field(name="Sets", value=_next_set_text(state), inline=False)
    return limits.fit_embed(embed)


def set_list_lines(sets: Sequence[SetSummary]) -> list[str]:
    source = {"text": "uploaded list", "csv": "uploaded CSV", "scryfall": "Scryfall"}
    return [f"`{s.key}` — {escape(s.name)}: {plural(s.card_count, 'card')} ({source.get(s.source, s.source)})"
            for s in sets]


# --- what the outbox sends (queued by the service with the change that causes it) ----------------------
# Each payload is a snapshot, so a late send (the sweeper's, after a crash) shows what happened then.


RENDERERS = Renderers()  # carried by its `FORMAT`


def announcement_view(news: Announcement) -> discord.ui.View | None:
    """What an announcement carries (`four_two_one.live_parts`): a new round's report and choose
    buttons, the loser's [Choose A–D] where they are called to choose, the take-apart menu."""
    items: list[discord.ui.Item] = []
    for key, _ in four_two_one.live_parts(news):
        if key == four_two_one.ROUND:
            items += round_items(news.league_id)
        elif key == four_two_one.CHOOSING:
            items.append(choose_button(news.league_id))
        else:
            items.append(TakeApartSelect.make(news.league_id, news.take_apart))
    return view_of(items)


@RENDERERS.renders(four_two_one.ANNOUNCE, Announcement)
async def announce(news: Announcement, ctx: Delivery) -> Outgoing | None:
    chunks = split_messages(event_lines(news))
    if not chunks:
        return None
    # The take-apart menu rides on the announcement that asks for it; only the player called to
    # act (and a new round's players) are pinged.
    return Outgoing(content=chunks[0], continued=chunks[1:], view=announcement_view(news),
                    allowed_mentions=limits.ping(*news.ping) if news.ping else None)


@RENDERERS.renders(four_two_one.MENU_DONE, ShownMenu)
async def menu_done(shown: ShownMenu, ctx: Delivery) -> Outgoing | None:
    """An announcement whose menu or buttons are done with (decks taken apart, the option chosen, the
    round or the league over): the same text without them."""
    chunks = split_messages(event_lines(shown.news, live=False))
    if not chunks:
        return None
    return Outgoing(content=chunks[0], edit=(shown.channel_id, shown.message_id))


@RENDERERS.renders(four_two_one.FINAL, Announcement)
async def final(news: Announcement, ctx: Delivery) -> Outgoing:
    chunks = split_messages(final_lines(news))
    return Outgoing(content=chunks[0], continued=chunks[1:],
                    view=await event_view(ctx.bot, ctx.message.guild_id, four_two_one.KIND, news.league_id),
                    allowed_mentions=limits.ping(*news.ping) if news.ping else None)  # the winner, in its channel
