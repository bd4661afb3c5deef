"""Outbox renderers (`bot.kit.delivery`): one per kind, declared in a package's `Renderers` where its
UI lives (a second one for a kind is refused, in one collection or when the bot merges them), given
the row's payload decoded to its `Payload` class; an outbox renders only the kinds it was given; and what every format says alike, rendered once
in the kit: a table cancelled, a player's DMs closed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from bot.kit import delivery, outbox, tables
from bot.kit.delivery import Delivery, Outbox, Outgoing, Renderers
from bot.kit.events import Payload
from bot.kit.table_cog import table_renderers

NOW = datetime(2026, 1, 2, tzinfo=UTC)
RENDERERS = Renderers()


@dataclass(frozen=True)
class Hello(Payload):
    name: str
    times: tuple[int, ...] = ()


@RENDERERS.renders("kittest.hello", Hello)
async def hello(greeting: Hello, ctx: Delivery) -> Outgoing:
    return Outgoing(content=f"Hello {greeting.name} {sum(greeting.times)} ({ctx.message.channel_id}, {ctx.fresh})")


def queued(kind: str, payload: dict, **where) -> outbox.Queued:
    return outbox.Queued(7, outbox.Message(kind, payload, **where), 0, NOW)


def sender(*renderers: Renderers) -> Outbox:
    return Outbox(SimpleNamespace(db=None), Renderers(*renderers))  # only what these renderers use of the bot


async def test_a_row_is_rendered_from_its_decoded_payload():
    out = await sender(RENDERERS)._render(queued("kittest.hello", {"name": "Ann", "times": [1, 2]}, channel_id=5), True)
    assert out.content == "Hello Ann 3 (5, True)"


async def test_an_outbox_renders_only_what_it_was_given():
    assert "kittest.hello" not in sender().renderers
    outcome = await sender()._try_send(queued("kittest.hello", {"name": "Ann"}, channel_id=5), True, [])
    assert outcome.error == "no renderer for kittest.hello"


def test_a_kind_has_one_renderer():
    async def other(greeting: Hello, ctx: Delivery) -> None:
        return None

    with pytest.raises(ValueError, match="kittest.hello"):
        RENDERERS.renders("kittest.hello", Hello)(other)
    elsewhere = Renderers()
    elsewhere.add("kittest.hello", Hello, other)
    with pytest.raises(ValueError, match="kittest.hello"):  # two packages' collections, merged by the bot
        Renderers(RENDERERS, elsewhere)
    assert Renderers(RENDERERS, RENDERERS).of("kittest.hello").render is hello  # the same one twice is fine
    assert RENDERERS.kinds() == {"kittest.hello"}


def kit_spec(kind: str = "kitcancel", **options) -> tables.TableSpec:
    return tables.TableSpec(kind=kind, noun="match", title="Kit match", model=object, seat_model=object,
                            view=lambda loaded: loaded, begin=None, players_problem=lambda n: None, **options)


async def test_a_cancelled_table_is_told_in_the_kits_words():
    spec = kit_spec(cancel_notice="kitcancel.ended", name=lambda table_id: f"Kit Cup #{table_id}")
    kit = table_renderers(spec)  # what the bot adds to its table for a format's spec
    assert kit.kinds() == {tables.lobby_kind("kitcancel"), "kitcancel.ended"}
    for payload in ({"table_id": 3}, {"event_id": 3}):  # the latter queued before the kit rendered it
        out = await sender(kit)._render(queued(spec.cancel_notice, payload, channel_id=5), False)
        assert out.content == "❌ Kit Cup #3 was cancelled by an organizer: nothing was recorded."
    assert kit_spec().name_of(3) == "Kit match #3"  # a format that names its tables by its title


async def test_a_format_may_say_how_its_tables_are_cancelled():
    spec = kit_spec("kitend", cancel_notice="kitend.ended", cancelled_as="ended by an organizer without a winner")
    out = await sender(table_renderers(spec))._render(queued("kitend.ended", {"table_id": 4}, channel_id=5), False)
    assert out.content == "❌ Kit match #4 was ended by an organizer without a winner: nothing was recorded."


async def test_closed_dms_are_told_in_the_kits_words():
    kit = Renderers()
    kit.dms_closed("kittest.dms_closed", what="your Kit cards", resend="/kit hand resend:True")
    with pytest.raises(ValueError, match="kittest.dms_closed"):
        kit.dms_closed("kittest.dms_closed", what="your hand", resend="/kit hand")
    closed = outbox.DmsClosed(44).to_payload()
    assert closed == {"user_id": 44}  # what formats queued before the kit rendered it
    out = await sender(kit)._render(queued("kittest.dms_closed", closed, channel_id=5), True)
    assert out.content == ("<@44>, I can't DM you your Kit cards. Turn on Direct Messages from server members, then "
                           "run `/kit hand resend:True`.")
    assert [user.id for user in out.allowed_mentions.users] == [44]


def test_a_text_split_into_messages_is_one_outgoing_pinging_only_whom_it_names():
    assert delivery.chunked([]) is None  # nothing to say: nothing sent
    out = delivery.chunked(["one", "two", "three"], ping=(44, 45))
    assert (out.content, out.continued) == ("one", ["two", "three"])
    assert [user.id for user in out.allowed_mentions.users] == [44, 45]
    assert delivery.chunked(["alone"]).allowed_mentions is None  # the client's default: no pings
