"""The nonce each outbox message is sent with (`bot.kit.delivery.nonce_of`): stable, distinct, short."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.kit.delivery import nonce_of
from bot.kit.outbox import Message, Queued

QUEUED_AT = datetime(2026, 11, 24, 5, 11, 15, 860521, tzinfo=UTC)


def row(row_id: int, created_at: datetime = QUEUED_AT, attempts: int = 0) -> Queued:
    return Queued(row_id, Message("vortex.pick", {"game_id": 1}, user_id=7), attempts, created_at)


def test_the_same_row_gets_the_same_nonce_at_every_attempt_and_in_every_process():
    # Read back from the database the row has the same id and time (microseconds kept), another attempt count.
    assert nonce_of(row(41)) == nonce_of(row(41, attempts=3)) == nonce_of(row(41, QUEUED_AT.astimezone(UTC)))


def test_rows_parts_and_databases_get_different_nonces():
    nonces = {nonce_of(row(41)), nonce_of(row(42)), nonce_of(row(41), 1), nonce_of(row(41), 2),
              nonce_of(row(41, QUEUED_AT + timedelta(seconds=1)))}
    assert len(nonces) == 5


@given(st.integers(1, 2**63 - 1), st.integers(0, 36**3 - 1),  # parts: a few at most; 46,656 fit
       st.datetimes(min_value=datetime(2015, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)))
def test_every_nonce_fits_discords_25_characters_and_tells_its_row_and_part(row_id, part, created_at):
    nonce = nonce_of(row(row_id, created_at), part)
    assert len(nonce) <= 25
    ident, number, _second = nonce.split(".")
    assert (int(ident, 36), int(number, 36)) == (row_id, part)
