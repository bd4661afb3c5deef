"""421: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.four_two_one import cog, rules, service, set_commands, ui, web
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="421",
    order=4,
    cog=f"{__name__}.cog",
    spec=service.SPEC,
    bookkeeping=service.LeagueBook,
    components=(ui.LobbyButton, ui.TakeApartSelect, ui.ClaimDeckSelect, ui.ReportButton, ui.ChooseButton,
                ui.OptionSelect),
    claims=(ui.ANSWERING,),
    forms=(ui.DECK_FORM,),
    outbox_kinds=(service.ANNOUNCE, service.FINAL, service.MENU_DONE),
    deadline_kinds=(),
    renderers=ui.RENDERERS,
    events=(rules.Event,),
    page_lists=(cog.POOL_PAGES, cog.DECK_PAGES, set_commands.SET_PAGES),
    web=web.PAGES,
    leaderboard="421",
    help=FormatHelp(
        key="421",
        name="421",
        start="`/421 start sets:<set codes>`: a league building decks from one shared 4/2/1 pool",
        about="A league for 2–6 players who build 60-card decks from one shared pool: 4 of each "
              "common, 2 of each uncommon, 1 of each rare. The loser of each match changes decks.",
        flow=(
            "**Start:** `/421 start sets` (an organizer), e.g. `sets:ala con`.",
            "**Join:** `/421 join` or the Join button; `/421 leave`.",
            "**Begin:** `/421 begin`; each player builds a deck with `/421 build`.",
            "**Each match:** report it with the round post's buttons; the opponent confirms or disputes. "
            "Its loser presses **Lost? Choose A–D**: alter, new deck, claim a set-aside deck, or the winner "
            "rebuilds.",
            "**Follow:** `/421 status` scores and who acts next; `/421 pool`, `/421 decks` the cards.",
            "**End:** the first to 21 points wins; `/421 end` (organizer; asks first) ends it now, "
            "`/421 cancel` records nothing.",
        ),
        more="`/421 settle` (an organizer not playing) decides a dispute · `/421 set list` the sets.",
    ),
)
