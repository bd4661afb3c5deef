"""421: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.four_two_one import service, ui
from bot.kit import claims_ui
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="421",
    order=4,
    cog=f"{__name__}.cog",
    spec=service.SPEC,
    bookkeeping=service.LeagueBook,
    components=(ui.LobbyButton, ui.TakeApartSelect, ui.ClaimDeckSelect),
    claims=(claims_ui.answers(service.KIND),),
    forms=(ui.DECK_FORM,),
    outbox_kinds=(service.ANNOUNCE, service.FINAL, service.MENU_DONE, service.CLAIM_DONE),
    deadline_kinds=(),
    web=f"{__name__}.web",
    leaderboard="421",
    help=FormatHelp(
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
)
