"""The typed codec (`bot.kit.events`): engine events and payloads to JSON and back, with nested
dataclasses, tuples, optionals, unions, dicts and enums; event names qualified by their family (each
name one class's, checked with the formats' declared families); payloads written before the names
were qualified still decode."""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.kit import events
from bot.kit.events import DecodeError, Payload


class Colour(enum.Enum):
    WHITE = "W"
    BLUE = "U"


# Two "formats" whose engines both have an event called `Scored` (as two real engines could).
@dataclass(frozen=True)
class AlphaEvent(events.Event, family="alpha"):
    pass


@dataclass(frozen=True)
class Plan:
    seat: int
    decks: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Paired(AlphaEvent):
    round: int
    plans: tuple[Plan, ...]
    bye: int | None
    colours: tuple[Colour, ...] = ()


@dataclass(frozen=True)
class Scored(AlphaEvent):
    points: dict[int, float]
    note: str = ""


@dataclass(frozen=True)
class BetaEvent(events.Event, family="beta"):
    pass


@dataclass(frozen=True)
class Scored2(BetaEvent):  # under its own name: "beta.Scored2"
    by: int


@dataclass(frozen=True)
class BetaScored(BetaEvent):
    by: int


BetaScored.__name__ = "Scored"  # beta's own `Scored`: the same bare name as alpha's


@dataclass(frozen=True)
class News(Payload):
    table_id: int
    users: tuple[int, ...]
    events: tuple[AlphaEvent, ...]
    last: Paired | Scored | None = None
    ping: tuple[int, ...] = ()


def through_json(data):
    return json.loads(json.dumps(data))  # what a JSON column gives back


def test_events_round_trip_with_nested_dataclasses_tuples_optionals_and_enums():
    paired = Paired(3, (Plan(0, ((0, 1), (1, 0))), Plan(2, ())), None, (Colour.BLUE,))
    data = through_json(events.encode(paired))
    assert data == {"type": "alpha.Paired", "round": 3, "bye": None, "colours": ["U"],
                    "plans": [{"seat": 0, "decks": [[0, 1], [1, 0]]}, {"seat": 2, "decks": []}]}
    back = events.decode(data, AlphaEvent)
    assert back == paired and type(back) is Paired
    assert isinstance(back.plans, tuple) and isinstance(back.plans[0].decks[0], tuple)
    assert events.decode(data) == paired  # a registered name needs no hint
    scored = Scored({1: 2.5, 10: 0.0}, "tie")
    assert events.decode(through_json(events.encode(scored)), AlphaEvent) == scored  # int keys come back


def test_a_payload_round_trips_with_typed_events_and_ignores_what_it_does_not_know():
    news = News(5, (10, 11), (Paired(1, (), 0), Scored({10: 1.0})), Scored({}), (10,))
    data = through_json(news.to_payload())
    assert data["events"][0]["type"] == "alpha.Paired" and data["users"] == [10, 11]
    assert News.from_payload(data) == news
    # A note another layer added (the outbox's `telling`) and a field added later with a default.
    assert News.from_payload({**data, "tell_if_refused": {"user_id": 1}}) == news
    older = {k: v for k, v in data.items() if k not in ("ping", "last")}
    assert News.from_payload(older) == News(5, (10, 11), news.events)


def test_old_payloads_with_bare_event_names_decode_to_their_formats_class():
    """Before the registry, a payload's events were `{"type": <class name>, **asdict(event)}`: an
    announcement queued then still decodes (its field says whose events they are)."""
    old = {"table_id": 5, "users": [10, 11], "events": [{"type": "Paired", **asdict(Paired(2, (Plan(1, ((1, 0),)),), 1))},
                                                         {"type": "Scored", "points": {"10": 3}, "note": ""}]}
    news = News.from_payload(through_json(old))
    assert news.events == (Paired(2, (Plan(1, ((1, 0),)),), 1), Scored({10: 3.0}))
    # "Scored" is alpha's among AlphaEvents, beta's among BetaEvents, and ambiguous without a hint.
    assert type(events.decode({"type": "Scored", "by": 4}, BetaEvent)) is BetaScored
    with pytest.raises(DecodeError):
        events.decode({"type": "Scored", "by": 4})
    assert events.decode({"type": "Paired", "round": 1, "plans": [], "bye": None}) == Paired(1, (), None)


def test_an_event_of_another_type_or_an_unknown_name_is_refused():
    with pytest.raises(DecodeError):
        events.decode({"type": "beta.Scored2", "by": 1}, AlphaEvent)
    with pytest.raises(DecodeError):
        events.decode({"type": "alpha.Nothing"}, AlphaEvent)
    with pytest.raises(DecodeError):
        News.from_payload({"table_id": "five", "users": [], "events": []})
    with pytest.raises(DecodeError):
        News.from_payload({"users": [], "events": []})  # a field without a default is missing
    with pytest.raises(DecodeError):
        events.decode([1, 2, 3], tuple[int, int])
    with pytest.raises(DecodeError, match="names its class"):
        events.decode({"round": 1, "plans": [], "bye": None}, AlphaEvent)  # which event is it?
    assert events.decode({"round": 1, "plans": [], "bye": None}, Paired) == Paired(1, (), None)


def test_each_name_is_one_classs_and_every_event_has_a_declared_family():
    names, problems = events.table(AlphaEvent, BetaEvent)
    assert names["alpha.Paired"] is Paired and names["beta.Scored"] is BetaScored and "alpha.AlphaEvent" not in names
    assert not [p for p in problems if "alpha" in p or "beta" in p]
    assert events.name_of(Paired) == "alpha.Paired" and events.registered("beta.Scored") is BetaScored

    @dataclass(frozen=True)
    class GammaEvent(events.Event, family="gamma"):
        pass

    @dataclass(frozen=True)
    class Won(GammaEvent):
        pass

    @dataclass(frozen=True)
    class Other(GammaEvent):
        pass

    Other.__name__ = "Won"
    _, problems = events.table(AlphaEvent, BetaEvent)
    assert "the event 'gamma.Won' (tests.kit.test_events) is of no declared family" in problems
    _, problems = events.table(AlphaEvent, GammaEvent)
    assert "the event name 'gamma.Won' is taken by two classes" in problems
    with pytest.raises(ValueError):
        type("TwoWords", (events.Event,), {}, family="two.words")
    with pytest.raises(TypeError, match="no family"):
        type("Orphan", (events.Event,), {})



@dataclass
class Doc:
    seed: int | str
    banks: list[float]
    history: list[dict] = field(default_factory=list)
    by_seat: dict[int, tuple[str, ...]] = field(default_factory=dict)
    flag: bool | None = None


@given(st.builds(
    Doc, seed=st.one_of(st.integers(-(2**62), 2**62), st.text(max_size=8)),
    banks=st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32)),
    history=st.lists(st.dictionaries(st.text(max_size=4), st.integers()), max_size=3),
    by_seat=st.dictionaries(st.integers(0, 9), st.tuples(st.text(max_size=4))),
    flag=st.one_of(st.none(), st.booleans()),
))
def test_any_document_round_trips_through_json(doc):
    assert events.decode(through_json(events.encode(doc)), Doc) == doc


def test_floats_stored_as_whole_numbers_come_back_as_floats():
    back = events.decode({"seed": 1, "banks": [600, 597.5]}, Doc)
    assert back.banks == [600.0, 597.5] and all(type(b) is float for b in back.banks)
    with pytest.raises(DecodeError):
        events.decode({"seed": 1, "banks": [True]}, Doc)
