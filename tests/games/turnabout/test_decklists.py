"""Turnabout's deck rules (`bot.games.turnabout.decklists`): sizes, no sideboard, the bans by Oracle
text (rules text, not reminder text) or by the fixed lists; and a decklist reads as 421 reads it."""

from __future__ import annotations

import pytest

from bot.games.four_two_one import service as four_two_one
from bot.games.turnabout import decklists as d
from bot.games.turnabout.decklists import DeckRejected
from bot.games.turnabout.rules import TurnaboutError


def test_documented_banned_lists():
    assert d.ANTE_CARDS == {
        "Amulet of Quoz",
        "Bronze Tablet",
        "Contract from Below",
        "Darkpact",
        "Demonic Attorney",
        "Jeweled Bird",
        "Rebirth",
        "Tempest Efreet",
        "Timmerian Fiends",
    }
    wishes = {"Burning Wish", "Cunning Wish", "Living Wish", "Golden Wish", "Death Wish", "Glittering Wish"}
    assert wishes | {"Ring of Ma'Ruf", "Research // Development"} <= d.OUTSIDE_GAME_FETCHERS
    assert d.BANNED_CARDS == d.ANTE_CARDS | d.OUTSIDE_GAME_FETCHERS


def test_a_legal_deck_may_hold_any_number_of_copies():
    cards, problems = d.check_decklist("60 Lightning Bolt\n")
    assert (cards, problems) == ([(60, "Lightning Bolt")], [])
    cards, problems = d.check_decklist("20 Mountain\n2x Shock\n38 Goblin Guide\n")
    assert problems == [] and sum(c for c, _ in cards) == 60


def test_fewer_than_sixty_cards_is_a_problem():
    _, problems = d.check_decklist("59 Lightning Bolt\n")
    assert problems == ["The deck has 59 cards; it needs at least 60."]


@pytest.mark.parametrize("card", sorted(d.BANNED_CARDS))
def test_every_banned_card_is_refused(card):
    _, problems = d.check_decklist(f"56 Island\n4 {card}\n")
    assert len(problems) == 1 and problems[0].startswith(card)
    assert ("ante card" in problems[0]) == (card in d.ANTE_CARDS)


@pytest.mark.parametrize(
    "spelling",
    [
        "burning wish",
        "BURNING WISH",
        "Ｂｕｒｎｉｎｇ Wish",
        "Research/Development",
        "Research",
        "Fae of Wishes",
        "Ring of Ma’Ruf",
    ],
)
def test_banned_names_match_however_they_are_written(spelling):
    _, problems = d.check_decklist(f"60 Island\n1 {spelling}\n")
    assert len(problems) == 1 and "banned" in problems[0]


@pytest.mark.parametrize(
    "text",
    [
        "56 Island\n\nSideboard\n4 Negate\n",
        "60 Island\nSB: 4 Negate\n",
        "Companion\n1 Negate\n\nDeck\n60 Island\n",
    ],
)
def test_a_sideboard_is_a_problem(text):
    cards, problems = d.check_decklist(text)
    assert any("no sideboard" in p for p in problems)
    assert "Negate" not in {name for _, name in cards}


def test_every_problem_is_reported_at_once():
    _, problems = d.check_decklist("10 Burning Wish\n2 Darkpact\n30 Swamp\nSideboard\n1 Duress\n")
    assert len(problems) == 4
    assert problems[0] == "The deck has 42 cards; it needs at least 60."
    assert any(p.startswith("Burning Wish (10 copies)") for p in problems)
    assert any(p.startswith("Darkpact (2 copies) is banned: an ante card") for p in problems)


EYETWITCH = ("Flying\nWhen Eyetwitch dies, learn. (You may reveal a Lesson card you own from outside the game and "
             "put it into your hand, or discard a card to draw a card.)")
ORACLE = {
    "Burning Wish": "You may reveal a sorcery card you own from outside the game and put it into your hand. "
                    "Exile Burning Wish.",
    "Eyetwitch": EYETWITCH,
    "Contract from Below": "Remove Contract from Below from your deck before playing if you're not playing for ante.\n"
                           "Discard your hand, ante the top card of your library, then draw seven cards.",
    "Jeweled Bird": "Remove Jeweled Bird from your deck before playing if you're not playing for ante.\n{T}: Ante "
                    "Jeweled Bird. If you do, put all other cards you own from the ante into your graveyard, then "
                    "draw a card.",
    "Fae of Wishes // Granted": "Flying\n{1}{U}, Discard two cards: Return Fae of Wishes to its owner's hand.\n//\n"
                                "You may reveal a noncreature card you own from outside the game and put it into "
                                "your hand.",
    "Mastermind's Acquisition": "Choose one —\n• Search your library for a card, put it into your hand, then "
                                "shuffle.\n• Put a card you own from outside the game into your hand.",
    "Lightning Bolt": "Lightning Bolt deals 3 damage to any target.",
    "Environmental Sciences": "Search your library for a basic land card, reveal it, put it into your hand, then "
                              "shuffle. You gain 2 life.",  # a Lesson: fetched, not fetching
    "Swamp": "({T}: Add {B}.)",
    "Learned Ante-Scholar": "When Learned Ante-Scholar enters, draw a card.",  # only its name says it
}


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Burning Wish", d.OUTSIDE),
        ("Eyetwitch", d.LEARN),
        ("Contract from Below", d.ANTE),
        ("Jeweled Bird", d.ANTE),
        ("Fae of Wishes // Granted", d.OUTSIDE),
        ("Mastermind's Acquisition", d.OUTSIDE),
        ("Lightning Bolt", None),
        ("Environmental Sciences", None),
        ("Swamp", None),
        ("Learned Ante-Scholar", None),
    ],
)
def test_oracle_text_decides_the_bans(name, why):
    assert d.oracle_ban(d.OracleText(name, ORACLE[name])) == why


def test_learn_without_its_reminder_text_is_still_learn():
    assert d.oracle_ban(d.OracleText("Eyetwitch", "Flying\nWhen Eyetwitch dies, learn.")) == d.LEARN


def test_known_cards_are_judged_by_their_oracle_text_the_others_by_the_lists():
    """Eyetwitch (learn) is on no list: refused by its Oracle text. Darkpact's text is unknown: the
    ante list refuses it. A card listed by its front face finds its text under that name."""
    oracle = {name: d.OracleText(name, text) for name, text in ORACLE.items()}
    oracle["Fae of Wishes"] = oracle["Fae of Wishes // Granted"]
    text = "4 Eyetwitch\n2 Burning Wish\n1 Darkpact\n1 Fae of Wishes\n4 Environmental Sciences\n48 Swamp\n"
    _, problems = d.check_decklist(text, oracle=oracle)
    assert problems == [
        "Burning Wish (2 copies) is banned: it brings cards into the game from outside it (by its Oracle text).",
        "Darkpact is banned: an ante card.",
        "Eyetwitch (4 copies) is banned: it has learn, which brings a Lesson card into the game from outside it "
        "(by its Oracle text).",
        "Fae of Wishes // Granted is banned: it brings cards into the game from outside it (by its Oracle text).",
    ]
    _, without = d.check_decklist(text)  # no card data: only the lists, and learn passes
    assert [p.split(" is banned")[0] for p in without] == ["Burning Wish (2 copies)", "Darkpact",
                                                           "Fae of Wishes // Granted"]
    assert d.decklist_names(text) == ["Eyetwitch", "Burning Wish", "Darkpact", "Fae of Wishes",
                                      "Environmental Sciences", "Swamp"]
    assert d.decklist_names(b"\xff\xfe") == []
    with pytest.raises(DeckRejected, match="Eyetwitch"):
        d.checked(text, oracle=oracle)


def test_a_registered_list_holds_at_most_250_cards():
    cards, problems = d.check_decklist(f"{d.MAX_DECKLIST_CARDS} Island\n")
    assert problems == [] and cards == [(250, "Island")]
    long_name = "Q" * 185
    text = "".join(f"1 {long_name} {i}\n" for i in range(1000))
    _, problems = d.check_decklist(text)
    assert problems == [
        "The list has 1,000 cards; a registered list may have at most 250 (join with a bigger deck without a list)."
    ]
    with pytest.raises(DeckRejected, match="at most 250"):
        d.checked("251 Island\n")


def test_duplicate_lines_merge_by_name_key():
    cards, _ = d.check_decklist("30 Island\n30 island\n")
    assert cards == [(60, "Island")]


def test_unreadable_decklists_are_rejected():
    with pytest.raises(DeckRejected):
        d.check_decklist(b"\xff\xfe\x00garbage")
    with pytest.raises(DeckRejected):
        d.check_decklist("")


LURRUS = ("Lifelink\nEach other creature card in your graveyard has escape. …\n"
          "Companion — Each permanent card in your starting deck has mana value 2 or less. (If this card is your "
          "chosen companion, you may put it into your hand from outside the game for {3} as a sorcery.)")


def test_a_companion_is_a_legal_card_of_the_main_deck():
    """The bans read the rules text: a companion's "from outside the game" is reminder text only."""
    assert d.oracle_ban(d.OracleText("Lurrus of the Dream-Den", LURRUS)) is None
    oracle = {"Lurrus of the Dream-Den": d.OracleText("Lurrus of the Dream-Den", LURRUS)}
    cards, problems = d.check_decklist("1 Lurrus of the Dream-Den\n59 Plains\n", oracle=oracle)
    assert problems == [] and (1, "Lurrus of the Dream-Den") in cards
    # A wish still says it in its rules text.
    assert d.oracle_ban(d.OracleText("Burning Wish", ORACLE["Burning Wish"])) == d.OUTSIDE


def test_a_companion_section_is_refused_with_the_way_to_play_it():
    _, problems = d.check_decklist("Companion\n1 Lurrus of the Dream-Den\n\nDeck\n60 Plains\n")
    assert problems == ["Turnabout uses no sideboard: remove that section (a companion is played as a card of "
                        "the main deck)."]


def test_deck_rejected_is_a_refusal_of_the_engine():
    with pytest.raises(TurnaboutError) as exc:
        d.checked("4 Burning Wish\n4 Golden Wish\n")
    assert len(exc.value.problems) == 3 and str(exc.value).startswith("The decklist is not legal")


ARENA_EXPORT = ("About\nName Mono-Red\n\nDeck\n20 Mountain\n4 Lightning Bolt\n36 Goblin Guide\n\n"
                "Sideboard\n3 Smash to Smithereens\n\nCompanion\n1 Lurrus of the Dream-Den\n")


@pytest.mark.parametrize("text", [
    ARENA_EXPORT,
    "20 Mountain\n4 Lightning Bolt\n36 Goblin Guide\n\n3 Smash to Smithereens\n1 Lurrus of the Dream-Den\n",
    "20 Mountain\n4 Lightning Bolt\n36 Goblin Guide\nSB: 3 Smash to Smithereens\nSB: 1 Lurrus of the Dream-Den\n",
])
def test_an_export_with_a_sideboard_reads_the_same_for_turnabout_and_421(text):
    """One reader, one sideboard rule: the same main deck, and the same sideboard (421 leaves it out and
    counts it; Turnabout refuses it)."""
    cards, problems = d.check_decklist(text)
    read_by_421 = four_two_one.read_decklist(text)
    assert sorted(name for count, name in cards for _ in range(count)) == sorted(read_by_421.names)
    assert read_by_421.ignored == 4 and sum(count for count, _ in cards) == 60
    assert problems == ["Turnabout uses no sideboard: remove that section (a companion is played as a card of the "
                        "main deck)."]
