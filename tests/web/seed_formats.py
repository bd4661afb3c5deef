"""One event of every format's page, played through the formats' real services, for the browser
test (and the screenshots in docs/): a complete draft and its Goldfish event, a running draft, a
Treasure Battler game played to its end, a Turnabout event to its final ranking, a 421 league, a
Vortex game in play. `seed(db, users)` returns where each page is: {what: (kind, id)}."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.cards.model import Card
from bot.features.cubes.service import CubeDetail
from bot.games.battler import service as battler
from bot.games.draft import service as drafts
from bot.games.four_two_one import service as league_service
from bot.games.goldfish import service as goldfish
from bot.games.turnabout import service as turnabout
from bot.games.vortex import service as vortex
from bot.kit import tables
from bot.kit.tables import Actor
from bot.store.db import Database
from tests.common import GUILD, ORG, player

CARDS = [
    "Lightning Bolt", "Counterspell", "Fire // Ice", "Brainstorm", "Llanowar Elves", "Swords to Plowshares",
    "Dark Ritual", "Sol Ring", "Giant Growth", "Serra Angel", "Shivan Dragon", "Hypnotic Specter", "Wrath of God",
    "Ancestral Recall", "Birds of Paradise", "Demonic Tutor", "Psionic Blast", "Sengir Vampire", "Juggernaut",
    "Howling Mine", "Disenchant", "Terror", "Fireball", "Holy Strength", "Control Magic", "Regrowth",
    "Wild Growth", "Clone", "Mahamoti Djinn", "Prodigal Sorcerer", "Black Knight", "White Knight",
    "Shatter", "Stone Rain", "Unsummon", "Royal Assassin", "Savannah Lions", "Hurricane", "Tranquility",
    "Earthquake", "Wheel of Fortune", "Timetwister", "Balance", "Time Walk", "Mox Pearl", "Mox Sapphire",
    "Pestilence", "Drain Life", "Stream of Life", "Lord of Atlantis",
]
WRITEUP = ("Turn 1: Dark Ritual into Hypnotic Specter.\nTurn 3: Fireball for 6.\n"
           "Turn 5: Shivan Dragon, pumped: 9 damage.\nTotal: 20 life lost, 2 cards milled.")


def cube(name: str, size: int = 50) -> CubeDetail:
    cards = tuple(Card(name=CARDS[i % len(CARDS)] if i < len(CARDS) else f"{CARDS[i % len(CARDS)]} ({i})",
                       colour="WUBRG"[i % 5]) for i in range(size))
    return CubeDetail(name=name, size=size, source="upload", source_ref=None, cards=cards)


def dm(user_id: int) -> Actor:
    return Actor(user_id, None)


async def _draft(db: Database, users: Sequence[int], channel: int, rng: random.Random, *, picks: int | None = None,
                 **options) -> drafts.PodView:
    pod = await drafts.create_pod(db, ORG, channel_id=channel, cube=cube("Vintage cube"), packs=2, pack_size=5,
                                  seed=rng.randrange(1000), **options)
    for user in users:
        await drafts.join(db, pod.id, player(user))
    begun = await drafts.begin(db, pod.id, ORG)
    pending = {p.user_id: p for p in begun.prompts}
    made = 0
    while pending and (picks is None or made < picks):
        prompt = pending.pop(rng.choice(sorted(pending)))
        result = await drafts.pick(db, prompt.pod_id, dm(prompt.user_id), pack_id=prompt.pack_id,
                                   pack_pick=prompt.pack_pick, card_index=rng.randrange(len(prompt.cards)),
                                   source="button")
        made += 1
        for nxt in [result.next_for_picker, *result.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
    return pod


async def _battler(db: Database, users: Sequence[int], channel: int) -> int:
    game = await battler.create_game(db, ORG, channel_id=channel, cube=cube("Battle box", 120), progression="flat2",
                                     seed=4242)
    for user in users:
        await battler.join(db, game.id, player(user))
    begun = await battler.begin(db, game.id, ORG)
    messages = iter(range(90_000, 10**6))
    prompts = {}

    async def deliver(found) -> None:
        for prompt in found:
            await battler.record_shown(db, prompt, channel_id=77, message_id=next(messages))
            prompts[prompt.user_id] = prompt

    async def act(prompt, move):
        return await battler.private_action(db, prompt.game_id, prompt.user_id, move, seat=prompt.seat,
                                            version=prompt.version, channel_id=77, message_id=next(messages))

    await deliver(begun.prompts)
    for prompt in list(prompts.values()):
        result = await act(prompt, battler.choose_basics(["Island", "Mountain"]))
        await deliver(result.prompts)
    for _ in range(300):
        state = (await battler.get_game(db, game.id)).state
        if state.phase == "over":
            return game.id
        if state.phase == "play":
            pr = next(p for p in state.pairings if p.result is None)
            rep = await battler.report(db, game.id, player(state.players[pr.a].user_id), "won")
            result = await battler.confirm_report(db, game.id, rep.report.id, player(state.players[pr.b].user_id))
            await deliver(result.prompts)
        else:
            for p in state.players:
                if p.status in ("alive", "ghost") and not p.done:
                    result = await act(prompts[p.user_id], battler.done())
                    if result.actor_prompt is not None:
                        prompts[p.user_id] = result.actor_prompt
                    await deliver(result.prompts)
    raise AssertionError("the battler game did not end")


async def _turnabout(db: Database, users: Sequence[int], channel: int) -> int:
    event = await turnabout.create_event(db, ORG, channel_id=channel, rounds=2, seed=3)
    for i, user in enumerate(users):
        decklist = "20 Lightning Bolt\n20 Fireball\n20 Mountain\n" if i % 2 == 0 else None
        await turnabout.join(db, event.id, player(user), deck=["Red Deck Wins", "Blue Skies", "Stompy", "Pox",
                                                                   "Sligh", "Turbo Fog"][i % 6],
                                 scoring=("dominaria", "tolaria", "phyrexia")[i % 3], decklist=decklist)
    await turnabout.begin(db, event.id, ORG)
    for _ in range(2):
        await turnabout.pair(db, event.id, ORG)
        view = await turnabout.get_event(db, event.id)
        for m in view.state.round_matches():
            if m.finished:
                continue
            a, b = view.user_of(m.a), view.user_of(m.b)
            await turnabout.report(db, event.id, player(a), result="won", value=7, game=1)
            await turnabout.confirm(db, event.id, m.number, 1, player(b))
            await turnabout.report(db, event.id, player(a), result="lost", value=2, game=2)
            await turnabout.confirm(db, event.id, m.number, 2, player(b))
    await turnabout.end(db, event.id, ORG)
    return event.id


async def _league(db: Database, users: Sequence[int], channel: int) -> int:
    from tests.games.four_two_one.test_service import card_set, decklist  # the service tests' sets

    league = await league_service.create_league(db, ORG, channel_id=channel, sets=[card_set("dom"), card_set("mir")],
                                                seed=5)
    for user in users:
        await tables.join(db, league_service.SPEC, league.id, player(user))
    await tables.begin(db, league_service.SPEC, league.id, ORG)
    view = await league_service.get_league(db, league.id)
    while view.state.phase == "building":
        view = (await league_service.build(db, league.id, player(view.user_of(view.state.step.seat)),
                                           decklist(view.state))).league
    for _ in range(2):
        match = view.state.matches[0]
        w, loser = view.user_of(match.a), view.user_of(match.b)
        pending = await league_service.report(db, league.id, player(w), result="won")
        await league_service.confirm(db, league.id, pending.claim.number, player(loser))
        result = await league_service.choose(db, league.id, player(loser), "B")
        view = (await league_service.build(db, league.id, player(loser), decklist(result.league.state))).league
    return league.id


async def _vortex(db: Database, users: Sequence[int], channel: int) -> int:
    game = await vortex.create_game(db, ORG, channel_id=channel, cube=cube("Vortex cube", 50), seed=777)
    for user in users:
        await tables.join(db, vortex.SPEC, game.id, player(user))
    await vortex.begin(db, game.id, ORG)

    async def pick_first() -> None:
        view = await vortex.get_game(db, game.id)
        async with db.read() as session:
            loaded = await vortex.GAMES.load(session, game.id, lock=False)
            offer = loaded.bookkeeping.offer
        seat = view.state.draft.seat
        await vortex.pick(db, game.id, view.state.players[seat].user_id, seat=seat, offer=offer, index=0)

    state = (await vortex.get_game(db, game.id)).state
    while state.phase == "opening":
        await pick_first()
        state = (await vortex.get_game(db, game.id)).state
    for p in state.players:
        await vortex.choose_basics(db, game.id, p.user_id, seat=p.seat, lands=["Island", "Island", "Mountain"])
    state = (await vortex.get_game(db, game.id)).state
    active = state.players[vortex.engine.active_seat(state)].user_id
    await vortex.draw(db, game.id, player(active))
    await pick_first()
    await vortex.shoe(db, game.id, player(active), "mill", count=2)
    await vortex.shoe(db, game.id, player(active), "reveal", count=1)
    return game.id


async def seed(db: Database, users: Sequence[int]) -> dict[str, tuple[str, int]]:
    """Every format's event, played by `users` (at least 6) in channels 500…; where each page is."""
    rng = random.Random(27)
    done = await _draft(db, users[:4], 500, rng, goldfish=drafts.GoldfishOptions(turns=7))
    event = await goldfish.default_event(db, GUILD, 500)
    for i, user in enumerate(users[:4]):
        await goldfish.submit(db, GUILD, event.id, user, life_lost=20 - 3 * i, cards_milled=2 * i, poison=i % 2,
                              game_wins=0, writeup=WRITEUP if i == 0 else f"Turn {i + 2}: attacked for the win.")
    running = await _draft(db, users[:3], 501, rng, picks=7)
    rotisserie = await _rotisserie(db, users[:3], 506)
    return {
        "draft": ("draft", done.id),
        "goldfish": ("goldfish", event.id),
        "running draft": ("draft", running.id),
        "battler": ("battler", await _battler(db, users[:4], 502)),
        "turnabout": ("turnabout", await _turnabout(db, users[:6], 503)),
        "421": ("421", await _league(db, users[:2], 504)),
        "vortex": ("vortex", await _vortex(db, users[:3], 505)),
        "running rotisserie": ("draft", rotisserie),
    }


async def _rotisserie(db: Database, users: Sequence[int], channel: int) -> int:
    """A Rotisserie of 24 cards face up, 4 picks each, 2 taken (its page shows the offer)."""
    pod = await drafts.create_rotisserie_pod(db, ORG, channel_id=channel, cube=cube("Vintage cube"), picks=4, offer=24,
                                             seed=11, max_seats=len(users))
    for user in users:
        await drafts.join(db, pod.id, player(user))
    prompts = (await drafts.begin(db, pod.id, ORG)).prompts
    for _ in range(2):
        [prompt] = prompts
        result = await drafts.pick(db, pod.id, dm(prompt.user_id), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
                                   card_index=0, source="command")
        prompts = [p for p in (result.next_for_picker, *result.others) if p is not None]
    return pod.id
