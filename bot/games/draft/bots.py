"""Bot drafters: how a bot (or the timer, for a player who ran out of time) picks a card.

Pure: no I/O, no Discord, no SQL. The service builds a :class:`CardBook` from the pod's cube (the
cube's card data, completed from Scryfall's card table where :func:`wants_card_data` says so) and
asks :func:`pick_for_seat` (or :func:`choose`) for each pick.

Card quality
------------
Each card gets a quality between 0 and 1 from the best data the cube has, in this order:

1. **the cube's ratings** (a shipped cube's 1–5, a CubeCobra import's Elo, an upload's rating
   column), as the card's percentile among the cube's rated cards, so any scale works;
2. **Scryfall's card data**, for the cards without a rating: EDHREC's popularity rank and the
   rarity, a little less for a land, a little more for a creature, less for 6 mana and more;
3. **cube order**: the earlier card first, when nothing else tells two cards apart (and as the
   quality itself when the cube gives nothing but names).

Colours, curve and lands
------------------------
A bot picks like a person: early it takes the best card, open to every colour; as its pool grows it
weighs each card by how much it improves its best two-colour deck, and from a third of its picks
(:data:`COMMITTED_AT`) on that is all that counts. In a pair of colours, a card that pair casts
(colourless cards fit every pair) is worth its quality, plus :data:`FILL` while the deck is short
of :data:`DECK_PLAYABLES` playables; a strong card (:data:`SPLASH_QUALITY` and up) needing one
colour more is worth a little as a splash, at most :data:`SPLASHES` of them; anything else is worth
nothing there. The curve counts: a deck with enough expensive cards (:data:`CURVE_LIMITS`) values
one more less. A land is worth a share of its quality (:data:`LAND_SHARE`), nothing in a deck
whose colours it makes no mana for, and basic lands nothing at all.

Each bot has a taste of its own (a small fixed nudge per card, at most :data:`TASTE`) and leans
towards a pair of colours (:func:`favourite_pair`, worth :data:`LEANING`): neighbours lean towards
different pairs, so a table of bots spreads over the colours as players reading each other's
signals do. A leaning only weighs between cards that fit the deck once the bot has committed.
The timer's picks for a player use no leaning: the player's own picks decide.

Determinism
-----------
:func:`choose` is a function of the book, the pack, the pool, the seed and the leaning: the same
inputs give the same card. Ties go to the earlier card of the pack.
"""

from __future__ import annotations

import math
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from bot.cards.model import is_basic_land
from bot.games.draft import rules

__all__ = [
    "COMMITTED_AT",
    "CURVE_LIMITS",
    "DECK_PLAYABLES",
    "FILL",
    "LAND_SHARE",
    "LEANING",
    "LEANINGS",
    "PAIRS",
    "SPLASHES",
    "SPLASH_QUALITY",
    "TASTE",
    "BotPick",
    "CardBook",
    "CardProfile",
    "bot_seed",
    "choose",
    "colour_mask",
    "deck_colours",
    "draft_with_bots",
    "favourite_pair",
    "mask_letters",
    "pick_for_seat",
    "playables",
    "wants_card_data",
]

WUBRG = "WUBRG"
_BIT = {c: 1 << i for i, c in enumerate(WUBRG)}
PAIRS: tuple[int, ...] = tuple(_BIT[a] | _BIT[b] for a, b in combinations(WUBRG, 2))
"""The ten two-colour pairs, as colour masks (W=1, U=2, B=4, R=8, G=16), in WUBRG order."""

COMMITTED_AT = 1 / 3
"""Share of its picks from which a bot values only what improves its best two-colour deck."""
DECK_PLAYABLES = 23
"""Playables (spells) a 40-card deck needs, with 17 lands."""
FILL = 0.5
"""What a playable is worth to a deck short of :data:`DECK_PLAYABLES`, on top of its quality."""
SPLASH_QUALITY = 0.85
"""A card needing one colour outside a pair is worth splashing there from this quality up ..."""
SPLASH_SHARE = 0.4
"""... for this share of its quality ..."""
SPLASHES = 2
"""... and at most this many of them."""
LAND_SHARE = 0.45
"""A land making mana for the deck (or colourless mana) is worth this share of its quality."""
CURVE_LIMITS: tuple[tuple[float, int, float], ...] = ((5, 5, 0.5), (6, 2, 0.35))
"""(mana value, how many such cards a deck wants at most, the share of its worth one more keeps)."""
TASTE = 0.03
"""A bot's own taste moves a card's quality by at most this much."""
LEANING = 0.25
"""What a card in the colours a bot leans towards is worth to it, on top of the rest."""
LEANINGS: tuple[int, ...] = tuple(
    _BIT[pair[0]] | _BIT[pair[1]] for pair in ("WU", "BR", "GW", "UB", "RG", "WB", "UR", "BG")
)
"""The pairs bots lean towards, in turn round the table (each draft swaps the colours round): each
colour in three or four of them, and neighbouring pairs disjoint."""

_RARITY = {"common": 0.35, "uncommon": 0.5, "rare": 0.62, "mythic": 0.72, "special": 0.6, "bonus": 0.6}
_EDHREC_SCALE = math.log10(30_000)  # rank 1 -> 1.0, rank 30,000 or worse -> 0.0
_UNKNOWN = 0.45  # the quality of a card nothing is known about
_ORDER_WEIGHT = 0.02  # how much cube order moves a card Scryfall knows (first to last)
_ORDER_ONLY_WEIGHT = 0.2  # ... and a card known by its name alone
_BASIC_TYPES = {"plains": "W", "island": "U", "swamp": "B", "mountain": "R", "forest": "G"}


def colour_mask(value: str | None) -> int:
    """The mask of a colour string's WUBRG letters (``"ub"`` -> U|B; ``"C"``, ``""``, None -> 0)."""
    mask = 0
    for c in (value or "").upper():
        mask |= _BIT.get(c, 0)
    return mask


def mask_letters(mask: int) -> str:
    """``"UB"`` for the mask of blue and black, ``""`` for colourless."""
    return "".join(c for c in WUBRG if mask & _BIT[c])


@dataclass(frozen=True)
class CardProfile:
    """What a bot knows of one card."""

    name: str
    colours: int
    """The colours it costs, as a mask (0: colourless)."""
    land: bool
    makes: int
    """For a land: the colours of mana it makes, as a mask (0: colourless mana, or not known)."""
    mana_value: float
    quality: float
    """How strong it is, 0 to 1 (see the module docstring)."""


class CardBook:
    """Every card of a cube with its :class:`CardProfile`: built once per pick transaction (about a
    millisecond for a 360-card cube).

    ``entries`` are the cube's cards in cube order, as a pod keeps them: ``name`` and any of
    ``colour``, ``type_line``, ``mana_value``, ``rarity``, ``rating``, ``edhrec_rank`` and
    ``colour_identity`` (for a land: the colours of mana it makes). A name listed twice keeps its
    first entry.
    """

    def __init__(self, entries: Iterable[Mapping]) -> None:
        firsts: dict[str, Mapping] = {}
        for entry in entries:
            firsts.setdefault(entry["name"], entry)
        cards = list(firsts.values())
        last = max(len(cards) - 1, 1)
        ratings = [_number(entry.get("rating")) for entry in cards]
        rated = sorted(r for r in ratings if r is not None)
        self.rated = len(rated)
        """How many of the cube's cards carry a rating."""
        self.profiles: dict[str, CardProfile] = {}
        for index, (entry, rating) in enumerate(zip(cards, ratings, strict=True)):
            estimate = _estimate(entry, index / last)
            if rating is not None:  # the rating decides; Scryfall's data only separates equal ratings
                quality = _percentile(rated, rating) + 0.05 * (estimate - _UNKNOWN)
            else:
                quality = estimate
            self.profiles[entry["name"]] = _profile(entry, min(1.0, max(0.0, quality)))

    def __len__(self) -> int:
        return len(self.profiles)

    def __contains__(self, name: object) -> bool:
        return name in self.profiles

    def profile(self, name: str) -> CardProfile:
        """The card's profile; a name the cube does not list is a weak colourless spell."""
        found = self.profiles.get(name)
        return found if found is not None else CardProfile(name, 0, False, 0, 2.0, 0.3)


def wants_card_data(entry: Mapping) -> bool:
    """Whether Scryfall's card table could tell a :class:`CardBook` more about a cube entry than the
    entry does: its colour is missing, it has neither a rating nor an EDHREC rank, or it is a land
    whose mana is not known (``colour_identity``)."""
    return (
        entry.get("colour") is None
        or (entry.get("rating") is None and entry.get("edhrec_rank") is None)
        or (_is_land(entry) and entry.get("colour_identity") is None)
    )


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _percentile(ordered: list[float], value: float) -> float:
    """Where ``value`` stands among ``ordered`` (sorted), 0 to 1; equal values share the middle."""
    if len(ordered) < 2:
        return 0.5
    below, up_to = bisect_left(ordered, value), bisect_right(ordered, value)
    return (below + (up_to - below - 1) / 2) / (len(ordered) - 1)


def _front_types(entry: Mapping) -> list[str]:
    type_line = str(entry.get("type_line") or "").split("//")[0]
    return type_line.lower().replace("—", " ").replace("-", " ").split()


def _is_land(entry: Mapping) -> bool:
    return "land" in _front_types(entry)


def _estimate(entry: Mapping, position: float) -> float:
    """A card's quality from Scryfall's data (0 to 1), for a card the cube gives no rating;
    ``position`` (0 first, 1 last in the cube) separates otherwise equal cards."""
    if is_basic_land(entry["name"]):
        return 0.0
    rank = entry.get("edhrec_rank")
    popularity = None
    if isinstance(rank, int) and not isinstance(rank, bool) and rank > 0:
        popularity = max(0.0, 1 - math.log10(rank) / _EDHREC_SCALE)
    rarity = _RARITY.get(str(entry.get("rarity") or "").lower())
    types = _front_types(entry)
    if popularity is None and rarity is None and not types:
        return max(0.0, _UNKNOWN + _ORDER_ONLY_WEIGHT * (0.5 - position))  # a name: its place in the cube
    if popularity is not None and rarity is not None:
        estimate = 0.65 * popularity + 0.35 * rarity
    else:
        estimate = popularity if popularity is not None else rarity if rarity is not None else _UNKNOWN
    if "land" in types:
        estimate -= 0.05
    elif "creature" in types or "planeswalker" in types:
        estimate += 0.03
    mana_value = _number(entry.get("mana_value")) or 0.0
    if mana_value >= 6:
        estimate -= 0.03 * (mana_value - 5)
    return min(1.0, max(0.0, estimate + _ORDER_WEIGHT * (0.5 - position)))


def _profile(entry: Mapping, quality: float) -> CardProfile:
    colours = colour_mask(entry.get("colour"))
    land = _is_land(entry)
    makes = 0
    if land:
        identity = entry.get("colour_identity")
        if identity is not None:
            makes = colour_mask(identity)
        else:  # a dual land's basic land types, else its own colours (mostly none: colourless mana)
            makes = colour_mask("".join(_BASIC_TYPES.get(word, "") for word in _front_types(entry))) or colours
    mana_value = _number(entry.get("mana_value"))
    if is_basic_land(entry["name"]):
        quality = 0.0  # any number of them is there for the taking
    return CardProfile(entry["name"], colours, land, makes, mana_value if mana_value is not None else 0.0, quality)


# --------------------------------------------------------------------------- a deck in two colours


class _Deck:
    """A pool seen as a deck in one pair of colours: what it is worth and holds."""

    __slots__ = ("pair", "value", "playables", "splashes", "curve")

    def __init__(self, pair: int) -> None:
        self.pair = pair
        self.value = 0.0
        self.playables = 0
        self.splashes = 0
        self.curve = [0] * len(CURVE_LIMITS)

    def worth(self, card: CardProfile) -> float:
        """What ``card`` would add to this deck."""
        if card.quality <= 0:
            return 0.0
        if card.land:
            if card.makes and not card.makes & self.pair:
                return 0.0  # it makes no mana this deck uses
            return LAND_SHARE * card.quality
        outside = card.colours & ~self.pair
        if outside:
            if outside & (outside - 1) or card.quality < SPLASH_QUALITY or self.splashes >= SPLASHES:
                return 0.0  # two colours more, not strong enough, or splashed enough already
            value = SPLASH_SHARE * card.quality
        else:
            value = card.quality
        for index, (mana_value, most, share) in enumerate(CURVE_LIMITS):
            if card.mana_value >= mana_value and self.curve[index] >= most:
                value *= share
        if self.playables < DECK_PLAYABLES:
            value += FILL
        return value

    def add(self, card: CardProfile) -> None:
        worth = self.worth(card)
        if worth <= 0:
            return
        self.value += worth
        if card.land:
            return
        self.playables += 1
        if card.colours & ~self.pair:
            self.splashes += 1
        for index, (mana_value, _, _) in enumerate(CURVE_LIMITS):
            if card.mana_value >= mana_value:
                self.curve[index] += 1


# --------------------------------------------------------------------------- the pick


def bot_seed(draft_seed: int, seat: int) -> int:
    """The seed of one seat's picks by a bot (or by the timer) in a draft: its taste."""
    return zlib.crc32(f"{draft_seed}:{seat}".encode())


_PERMUTATIONS = tuple(permutations(range(len(WUBRG))))


def favourite_pair(draft_seed: int, seat: int) -> int:
    """The pair of colours (a mask) the bot of one seat leans towards: :data:`LEANINGS` in turn
    round the table, from a place the draft's seed gives, with the colours swapped round as the
    seed gives too (so no seat leans the same way every draft, and every pair is leaned to)."""
    draft = zlib.crc32(f"{draft_seed}".encode())
    pair = LEANINGS[(draft + seat) % len(LEANINGS)]
    order = _PERMUTATIONS[draft // len(LEANINGS) % len(_PERMUTATIONS)]
    return sum(1 << order[i] for i in range(len(WUBRG)) if pair & 1 << i)


def _taste(seed: int, name: str) -> float:
    """The bot's own nudge for a card, in [-TASTE, TASTE]: fixed for a seed and a card."""
    return TASTE * (2 * zlib.crc32(name.encode(), seed & 0xFFFFFFFF) / 0xFFFFFFFF - 1)


def choose(
    book: CardBook, pack: Sequence[str], pool: Sequence[str], *, seed: int, picks_per_seat: int, favourite: int = 0
) -> str:
    """The card a bot with ``pool`` (its picks so far) takes from ``pack``.

    ``picks_per_seat`` is how many picks the seat makes in the whole draft (packs × pack size): the
    bot commits to two colours by :data:`COMMITTED_AT` of them. ``seed`` gives the bot its taste
    (:func:`bot_seed`); ``favourite``, a colour mask (:func:`favourite_pair`), the colours it leans
    towards (0: none). Raises ValueError for an empty pack.
    """
    if not pack:
        raise ValueError("There is nothing left in that pack to pick.")
    commitment = min(1.0, len(pool) / max(picks_per_seat, 1) / COMMITTED_AT)
    decks = [_Deck(pair) for pair in PAIRS]
    for name in pool:
        card = book.profile(name)
        for deck in decks:
            deck.add(card)
    best_now = max(deck.value for deck in decks)
    chosen, chosen_score = pack[0], -math.inf
    for name in pack:
        card = book.profile(name)
        gain = max(deck.value + deck.worth(card) for deck in decks) - best_now
        raw = card.quality * (LAND_SHARE if card.land else 1.0)
        score = (1 - commitment) * raw + commitment * gain + _taste(seed, name)
        if card.colours and not card.colours & ~favourite:
            score += LEANING
        if score > chosen_score:
            chosen, chosen_score = name, score
    return chosen


def pick_for_seat(
    book: CardBook, pack: Sequence[str], pool: Sequence[str], *, draft_seed: int, seat: int, picks_per_seat: int,
    bot: bool,
) -> str:
    """:func:`choose` for one seat of a draft: with the seat's taste, and, for a seat a bot plays
    (``bot``), its leaning; the timer picking for a player (not ``bot``) follows the player's picks."""
    favourite = favourite_pair(draft_seed, seat) if bot else 0
    return choose(book, pack, pool, seed=bot_seed(draft_seed, seat), picks_per_seat=picks_per_seat,
                  favourite=favourite)


# --------------------------------------------------------------------------- judging a pool


def playables(book: CardBook, pool: Iterable[str], pair: int) -> int:
    """How many of ``pool``'s cards are spells (not lands) a deck in ``pair`` casts: their colours
    within the pair, or colourless."""
    count = 0
    for name in pool:
        card = book.profile(name)
        if not card.land and card.quality > 0 and not card.colours & ~pair:
            count += 1
    return count


def deck_colours(book: CardBook, pool: Sequence[str]) -> int:
    """The pair of colours (a mask) a pool's best deck plays: the most playables, then the most
    quality in them; a tie goes to the pair first in WUBRG order."""
    cards = [book.profile(name) for name in pool]

    def key(pair: int) -> tuple[int, float]:
        fits = [c for c in cards if not c.land and c.quality > 0 and not c.colours & ~pair]
        return len(fits), sum(c.quality for c in fits)

    return max(PAIRS, key=key)


# --------------------------------------------------------------------------- a draft of bots alone


@dataclass(frozen=True)
class BotPick:
    seat: int
    pack_id: int
    pack_pick: int
    card: str


def draft_with_bots(
    book: CardBook, cube: Sequence[str], config: rules.DraftConfig, seed: int
) -> tuple[list[list[str]], list[BotPick]]:
    """A whole draft with a bot in every seat (for tests and the benchmark): the packs dealt from
    ``cube`` with ``seed`` (as a pod deals them) and every pick in order, each bot picking as soon as
    it has a pack (seats in turn), as :func:`pick_for_seat` picks for a bot seat."""
    packs = rules.generate_packs(cube, config, seed)
    state = rules.DraftState.new(config, packs)
    pools: list[list[str]] = [[] for _ in range(config.seats)]
    picks: list[BotPick] = []
    while not state.is_complete():
        for seat, head in enumerate(state.heads()):
            if head is None:
                continue
            card = pick_for_seat(book, head.cards, pools[seat], draft_seed=seed, seat=seat,
                                 picks_per_seat=config.picks_per_seat, bot=True)
            picks.append(BotPick(seat, head.pack_id, head.picks_made, card))
            state.pick(seat, head.pack_id, card)
            pools[seat].append(card)
    return packs, picks
