# ruff: noqa: ASYNC109  (the test-facing API takes explicit timeout= arguments by design)
"""The fake Gateway: websocket sessions, IDENTIFY / RESUME, dispatch by shard and intent, disconnects."""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import secrets
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from .base import FakeBase
from .constants import INTENT_GUILDS

log = logging.getLogger("fake_discord")


@dataclass(eq=False)
class _Conn:
    ws: web.WebSocketResponse
    compressor: Any  # zlib compressobj or None
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    writer: asyncio.Task[None] | None = None
    session: _Session | None = None
    closed: bool = False

    def send(self, payload: Any) -> None:
        if not self.closed:
            self.queue.put_nowait(payload)


@dataclass(eq=False)
class _Session:
    session_id: str
    shard_id: int
    shard_count: int
    intents: int
    conn: _Conn | None = None
    seq: int = 0
    history: collections.deque[dict[str, Any]] = field(default_factory=lambda: collections.deque(maxlen=5000))
    superseded: bool = False

    def dispatch(self, event: str, data: Any) -> None:
        self.seq += 1
        payload = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.history.append(payload)
        if self.conn is not None:
            self.conn.send(payload)


class Gateway(FakeBase):
    def _init_gateway(self) -> None:
        self.generation = 0
        # (time, "in" / "out" / "drop(intent)", op, event name)
        self.gateway_log: list[tuple[float, str, int | None, str | None]] = []
        self._conns: set[_Conn] = set()
        self._sessions: dict[str, _Session] = {}
        self._shard_sessions: dict[int, _Session] = {}
        self._identified_shards: set[int] = set()
        self.shard_identifies: collections.Counter[int] = collections.Counter()  # shard id -> IDENTIFYs done
        self._background: set[asyncio.Task[Any]] = set()
        self._gateway_open = asyncio.Event()  # cleared while `disconnect_gateway(hold=True)` lasts
        self._gateway_open.set()
        self.gateway_waiting = 0  # connection attempts held at the door right now

    async def wait_for_shard(self, shard_id: int, *, identifies: int, timeout: float = 30) -> None:
        """Wait until shard `shard_id` has IDENTIFYed (and got READY + GUILD_CREATEs) `identifies`
        times: for bots whose shards run in separate processes that restart one at a time."""
        await self.wait_for(
            lambda: self.shard_identifies[shard_id] >= identifies,
            timeout=timeout,
            what=f"shard {shard_id} READY (#{identifies})",
        )

    async def wait_for_ready(self, *, generation: int | None = None, timeout: float = 30) -> None:
        target = 1 if generation is None else generation
        await self.wait_for(
            lambda: self.generation >= target, timeout=timeout, what=f"bot READY (generation {target})"
        )

    # ------------------------------------------------------------------ gateway

    def _shard_of(self, guild_id: int | None) -> int:
        """Discord's routing: DMs go to shard 0, a guild's events to (guild_id >> 22) % shard_count."""
        return 0 if guild_id is None else (guild_id >> 22) % self.shard_count

    def _session_for(self, guild_id: int | None) -> _Session | None:
        return self._shard_sessions.get(self._shard_of(guild_id))

    def _dispatch(
        self, event: str, data: Any, *, guild_id: int | None = None, intent: int | None = None
    ) -> bool:
        session = self._session_for(guild_id)
        if session is None:
            return False
        if intent is not None and not session.intents & intent:
            self.gateway_log.append((time.monotonic(), "drop(intent)", 0, event))
            return False
        session.dispatch(event, data)
        self._changed()
        return True

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if not self._gateway_open.is_set():  # an outage: the bot's reconnect waits (it has a timeout)
            self.gateway_waiting += 1
            self._changed()
            try:
                await self._gateway_open.wait()
            finally:
                self.gateway_waiting -= 1
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        compressor = zlib.compressobj() if request.query.get("compress") == "zlib-stream" else None
        conn = _Conn(ws=ws, compressor=compressor)
        conn.writer = asyncio.create_task(self._writer(conn))
        self._conns.add(conn)
        conn.send(
            {
                "op": 10,
                "s": None,
                "t": None,
                "d": {"heartbeat_interval": self.heartbeat_interval, "_trace": ["fake-gateway"]},
            }
        )
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    payload = json.loads(msg.data)
                elif msg.type is WSMsgType.BINARY:
                    payload = json.loads(msg.data.decode())
                else:
                    break
                self.gateway_log.append((time.monotonic(), "in", payload.get("op"), None))
                await self._gateway_op(conn, payload)
                self._changed()
        except Exception:  # the peer vanishing (kill -9) must never crash the fake
            log.debug("gateway connection error", exc_info=True)
        finally:
            conn.closed = True
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            if conn.writer is not None:
                conn.writer.cancel()
            self._conns.discard(conn)
            self._changed()
        return ws

    async def _writer(self, conn: _Conn) -> None:
        try:
            while True:
                item = await conn.queue.get()
                if callable(item):
                    item()
                    continue
                if isinstance(item, tuple) and item[0] == "close":
                    await conn.ws.close(code=item[1])
                    return
                text = json.dumps(item, separators=(",", ":"))
                self.gateway_log.append((time.monotonic(), "out", item.get("op"), item.get("t")))
                if conn.compressor is not None:
                    data = conn.compressor.compress(text.encode()) + conn.compressor.flush(zlib.Z_SYNC_FLUSH)
                    await conn.ws.send_bytes(data)
                else:
                    await conn.ws.send_str(text)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.debug("gateway writer stopped", exc_info=True)

    async def _close_conn(self, conn: _Conn, code: int) -> None:
        conn.closed = True
        if conn.writer is not None:
            conn.writer.cancel()
        try:
            await conn.ws.close(code=code)
        except Exception:
            pass

    async def _gateway_op(self, conn: _Conn, payload: dict[str, Any]) -> None:
        op, d = payload.get("op"), payload.get("d")
        if op == 1:
            conn.send({"op": 11, "s": None, "t": None, "d": None})
        elif op == 2:
            await self._identify(conn, d or {})
        elif op == 6:
            self._resume(conn, d or {})
        elif op == 8:
            self._request_members(conn, d or {})
        elif op in (3, 4):
            pass  # presence / voice state updates: accepted, ignored
        else:
            log.warning("fake Discord gateway: unknown op %s", op)

    async def _identify(self, conn: _Conn, d: dict[str, Any]) -> None:
        if conn.session is not None:
            conn.send(("close", 4005))
            return
        shard_id, shard_count = d.get("shard") or [0, 1]
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            log.error(
                "fake Discord: IDENTIFY with shard %s/%s but fake has %s shards",
                shard_id,
                shard_count,
                self.shard_count,
            )
            conn.send(("close", 4010))
            return
        session = _Session(
            session_id=secrets.token_hex(16),
            shard_id=shard_id,
            shard_count=shard_count,
            intents=int(d.get("intents", 0)),
            conn=conn,
        )
        old = self._shard_sessions.get(shard_id)
        if old is not None:
            old.superseded = True
        conn.session = session
        self._sessions[session.session_id] = session
        self._shard_sessions[shard_id] = session
        guild_ids = [gid for gid in self._guilds if self._shard_of(gid) == shard_id]
        session.dispatch(
            "READY",
            {
                "v": 10,
                "user": self.bot_user,
                "guilds": [{"id": str(gid), "unavailable": True} for gid in guild_ids],
                "session_id": session.session_id,
                "session_type": "normal",
                "resume_gateway_url": self.gateway_url,
                "shard": [shard_id, shard_count],
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "user_settings": {},
                "auth": {},
                "_trace": ["fake-gateway"],
            },
        )
        if session.intents & INTENT_GUILDS:  # like Discord: no GUILD_CREATE without the GUILDS intent
            for gid in guild_ids:
                session.dispatch("GUILD_CREATE", self._guild_create_payload(gid, session.intents))

        def identified() -> None:
            self.shard_identifies[shard_id] += 1
            self._identified_shards.add(shard_id)
            if len(self._identified_shards) >= self.shard_count:
                self._identified_shards.clear()
                self.generation += 1
                log.info("fake Discord: bot generation %s ready", self.generation)
            self._changed()

        conn.send(identified)

    def _resume(self, conn: _Conn, d: dict[str, Any]) -> None:
        session = self._sessions.get(d.get("session_id", ""))
        seq = d.get("seq") or 0
        if session is None or session.superseded or (session.history and session.history[0]["s"] > seq + 1):
            conn.send({"op": 9, "s": None, "t": None, "d": False})
            return
        old = session.conn
        if old is not None and old is not conn:
            old.session = None
            task = asyncio.create_task(self._close_conn(old, 4000))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        session.conn = conn
        conn.session = session
        for payload in list(session.history):
            if payload["s"] > seq:
                conn.send(payload)
        session.dispatch("RESUMED", {"_trace": ["fake-gateway"]})

    def _request_members(self, conn: _Conn, d: dict[str, Any]) -> None:
        session = conn.session
        if session is None:
            return
        gids = d.get("guild_id")
        for gid in gids if isinstance(gids, list) else [gids]:
            g = self._guilds.get(int(gid))
            if g is None:
                continue
            query = (d.get("query") or "").lower()
            user_ids = {int(u) for u in d.get("user_ids") or []}
            members = [
                u
                for u in g["members"]
                if (not user_ids or u in user_ids) and self._user(u)["username"].lower().startswith(query)
            ]
            if d.get("limit"):
                members = members[: d["limit"]]
            chunk = {
                "guild_id": str(gid),
                "members": [self._member_obj(int(gid), u) for u in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [str(u) for u in user_ids if u not in g["members"]],
            }
            if d.get("nonce"):
                chunk["nonce"] = d["nonce"]
            session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    async def disconnect_gateway(
        self, *, code: int = 4000, shard_id: int | None = None, hold: bool = False, invalidate: bool = False
    ) -> None:
        """Drop the bot's websocket(s) as if the network failed; the bot is expected to RESUME.

        `hold`: no new connection is let in until `restore_gateway()` (an outage of some length:
        what happens meanwhile is stored in the session, and replayed to a RESUME, like Discord).
        `invalidate`: the dropped sessions can't be resumed (Discord answers RESUME with op 9), so
        the bot must IDENTIFY again, and a new session never gets the events the old one missed."""
        if hold:
            self._gateway_open.clear()
        for conn in list(self._conns):
            if shard_id is None or (conn.session is not None and conn.session.shard_id == shard_id):
                if invalidate and conn.session is not None:
                    conn.session.superseded = True
                await self._close_conn(conn, code)
        self._changed()

    def restore_gateway(self) -> None:
        """End a `disconnect_gateway(hold=True)`: the waiting connection attempts go on."""
        self._gateway_open.set()
        self._changed()

    def events_dispatched(self, shard_id: int = 0) -> int:
        """Events given to the shard's current session so far: delivered, or (while it is
        disconnected) kept for a RESUME."""
        session = self._shard_sessions.get(shard_id)
        return 0 if session is None else session.seq

    def gateway_connected(self, shard_id: int = 0) -> bool:
        s = self._shard_sessions.get(shard_id)
        return s is not None and s.conn is not None and not s.conn.closed
