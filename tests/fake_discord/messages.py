"""Messages the fake stores: create / edit / delete, attachments, reactions, and their gateway events."""

from __future__ import annotations

import collections
import mimetypes
import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .base import ApiError, FakeBase, form_error, invalid_form
from .constants import (
    ATTACHMENT_SIZE_LIMIT,
    EPHEMERAL,
    INTENT_DIRECT_MESSAGE_REACTIONS,
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGE_REACTIONS,
    INTENT_GUILD_MESSAGES,
    INTENT_MESSAGE_CONTENT,
    LOADING,
    MAX_FILES,
    MENTION_EVERYONE,
)
from .models import iso_now, snowflake_time
from .validation import validate_message

if TYPE_CHECKING:
    from .interactions import _Interaction


def emoji_key(emoji: str) -> str:
    """'👍' -> '👍'; '<:name:123>' / '<a:name:123>' / 'name:123' -> 'name:123'."""
    emoji = emoji.strip()
    m = re.fullmatch(r"<a?:(\w+):(\d+)>", emoji)
    if m:
        return f"{m.group(1)}:{m.group(2)}"
    return emoji


def emoji_obj(key: str) -> dict[str, Any]:
    m = re.fullmatch(r"(\w+):(\d+)", key)
    if m:
        return {"id": m.group(2), "name": m.group(1), "animated": False}
    return {"id": None, "name": key}


class Messages(FakeBase):
    def _init_messages(self) -> None:
        self._messages: dict[int, dict[str, Any]] = {}
        self._msg_meta: dict[int, dict[str, Any]] = {}
        self._channel_messages: dict[int, list[int]] = collections.defaultdict(list)
        self._reactions: dict[int, dict[str, dict[int, None]]] = {}
        self._attachments: dict[int, tuple[str, str, bytes]] = {}  # id -> (filename, content type, bytes)
        # (author, channel, nonce) -> (message id, when it was created): for `enforce_nonce`
        self._nonces: dict[tuple[int, int, str], tuple[int, float]] = {}
        self.nonce_replays: list[int] = []  # ids of messages answered again for a repeated nonce

    def _make_attachments(
        self,
        entries: list[dict[str, Any]] | None,
        files: dict[int, tuple[str, str | None, bytes]],
        existing: list[dict[str, Any]],
        *,
        ephemeral: bool,
    ) -> list[dict[str, Any]]:
        existing_by_id = {a["id"]: a for a in existing}
        out: list[dict[str, Any]] = []
        used: set[int] = set()
        for entry in entries or []:
            eid = str(entry.get("id"))
            if eid in existing_by_id:
                out.append(existing_by_id[eid])
                continue
            try:
                index = int(eid)
            except ValueError:
                continue
            if index in files:
                used.add(index)
                fname, ctype, data = files[index]
                out.append(
                    self._new_attachment(
                        entry.get("filename") or fname,
                        data,
                        ctype,
                        description=entry.get("description"),
                        ephemeral=ephemeral,
                    )
                )
        for index, (fname, ctype, data) in sorted(files.items()):
            if index not in used:
                out.append(self._new_attachment(fname, data, ctype, ephemeral=ephemeral))
        if entries is None:
            out = existing + out
        return out

    def _new_attachment(
        self,
        filename: str,
        data: bytes,
        content_type: str | None = None,
        *,
        description: str | None = None,
        ephemeral: bool = False,
    ) -> dict[str, Any]:
        aid = self._snowflake()
        guessed = mimetypes.guess_type(filename)[0]
        if not content_type or content_type == "application/octet-stream":
            content_type = guessed or "application/octet-stream"
        if content_type.startswith("text/") and "charset" not in content_type:
            content_type += "; charset=utf-8"
        self._attachments[aid] = (filename, content_type.split(";")[0], data)
        url = f"{self.base_url}/attachments/{aid}/{quote(filename)}"
        att = {
            "id": str(aid),
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
            "flags": 0,
        }
        if description:
            att["description"] = description
        if ephemeral:
            att["ephemeral"] = True
        return att

    def _fix_embed_attachment_urls(
        self, embeds: list[dict[str, Any]], attachments: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        by_name = {a["filename"]: a["url"] for a in attachments}
        out = []
        for e in embeds:
            e = {**e, "type": e.get("type", "rich")}
            for key in ("image", "thumbnail"):
                url = (e.get(key) or {}).get("url", "")
                if url.startswith("attachment://") and url[len("attachment://") :] in by_name:
                    e[key] = {
                        **e[key],
                        "url": by_name[url[len("attachment://") :]],
                        "proxy_url": by_name[url[len("attachment://") :]],
                    }
            out.append(e)
        return out

    @staticmethod
    def _check_files(files: dict[int, tuple[str, str | None, bytes]]) -> None:
        """Discord's upload limits: at most 10 files a message, and 10 MiB in all (a bot in a
        server without boosts); over that Discord answers 413 with code 40005."""
        if len(files) > MAX_FILES:
            raise invalid_form({"files": {"_errors": [
                {"code": "BASE_TYPE_MAX_LENGTH", "message": f"Must be {MAX_FILES} or fewer in length."}]}})
        if sum(len(data) for _name, _type, data in files.values()) > ATTACHMENT_SIZE_LIMIT:
            raise ApiError(413, 40005, "Request entity too large")

    @staticmethod
    def _check_new_message(payload: dict[str, Any], files: dict[int, Any]) -> None:
        """Discord's limits for a new message (content, embeds, components) and its 50006 for an empty one."""
        errors, empty = validate_message(payload, has_files=bool(files))
        if errors:
            raise invalid_form(errors)
        if empty:
            raise ApiError(400, 50006, "Cannot send an empty message")

    def _earlier_by_nonce(self, channel_id: int, author_id: int, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Discord's `enforce_nonce`: the message this author created in this channel with this nonce
        within `nonce_window` seconds (it comes back instead of a new one, and nothing is dispatched);
        None when there is none (or the request does not enforce its nonce). One deleted since is
        Discord's 404 Unknown Message."""
        nonce = payload.get("nonce")
        if nonce is None or not payload.get("enforce_nonce"):
            return None
        found = self._nonces.get((author_id, channel_id, str(nonce)))
        if found is None or time.monotonic() - found[1] > self.nonce_window:
            return None
        mid = found[0]
        if self._msg_meta[mid]["deleted"]:
            raise ApiError(404, 10008, "Unknown Message")
        self.nonce_replays.append(mid)
        self._changed()
        return self._messages[mid]

    def _create_message(
        self,
        channel_id: int,
        payload: dict[str, Any],
        files: dict[int, tuple[str, str | None, bytes]],
        *,
        author_id: int | None = None,
        msg_type: int = 0,
        ix: _Interaction | None = None,
        extra_flags: int = 0,
        validate: bool = True,
    ) -> dict[str, Any]:
        ch = self._channel(channel_id)
        payload = payload or {}
        self._check_files(files)
        if validate:
            self._check_new_message(payload, files)
        author_id = self.bot_user_id if author_id is None else author_id
        flags = (
            int(payload.get("flags") or 0) & (EPHEMERAL | (1 << 2) | (1 << 12) | (1 << 15))
        ) | extra_flags
        ephemeral = bool(flags & EPHEMERAL)
        mid = self._snowflake()
        attachments = self._make_attachments(payload.get("attachments"), files, [], ephemeral=ephemeral)
        msg: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "type": msg_type,
            "content": payload.get("content") or "",
            "author": self._user(author_id),
            "timestamp": snowflake_time(mid).isoformat(),
            "edited_timestamp": None,
            "tts": bool(payload.get("tts", False)),
            "mention_everyone": False,  # the three mention fields: set below, once the reply is known
            "mentions": [],
            "mention_roles": [],
            "mention_channels": [],
            "attachments": attachments,
            "embeds": self._fix_embed_attachment_urls(payload.get("embeds") or [], attachments),
            "components": payload.get("components") or [],
            "pinned": False,
            "flags": flags,
            "reactions": [],
        }
        if payload.get("nonce") is not None:
            msg["nonce"] = str(payload["nonce"])
            key = (author_id, channel_id, msg["nonce"])
            earlier = self._nonces.get(key)
            if earlier is None or time.monotonic() - earlier[1] > self.nonce_window:
                self._nonces[key] = (mid, time.monotonic())
        if payload.get("poll"):
            msg["poll"] = payload["poll"]
        ref = payload.get("message_reference")
        if ref and ref.get("message_id"):
            msg["message_reference"] = {
                "type": ref.get("type", 0),
                "message_id": str(ref["message_id"]),
                "channel_id": str(ref.get("channel_id", channel_id)),
            }
            if ch.get("guild_id"):
                msg["message_reference"]["guild_id"] = ch["guild_id"]
            referenced = self._messages.get(int(ref["message_id"]))
            if referenced is not None:
                msg["referenced_message"] = referenced
            elif ref.get("fail_if_not_exists", True):
                raise form_error(
                    ["message_reference"], "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message"
                )
        if ix is not None:
            msg["webhook_id"] = str(self.application_id)
            msg["application_id"] = str(self.application_id)
            owners = {"0": str(ix.guild_id)} if ix.guild_id else {"1": str(ix.user_id)}
            meta: dict[str, Any] = {
                "id": str(ix.id),
                "type": ix.type,
                "user": self._user(ix.user_id),
                "authorizing_integration_owners": owners,
            }
            if ix.type == 2:
                meta["name"] = ix.data.get("name")
                meta["command_type"] = ix.data.get("type", 1)
            if ix.source_message_id is not None:
                meta["interacted_message_id"] = str(ix.source_message_id)
            msg["interaction_metadata"] = meta
            if ix.type == 2:
                msg["interaction"] = {
                    "id": str(ix.id),
                    "type": 2,
                    "name": ix.data.get("name", ""),
                    "user": self._user(ix.user_id),
                }
        msg.update(self._mention_fields(msg, payload.get("allowed_mentions")))
        self._messages[mid] = msg
        gid = self._channel_guild_id(channel_id)
        self._msg_meta[mid] = {
            "guild_id": gid,
            "ephemeral": ephemeral,
            "deleted": False,
            "visible_to": ix.user_id if (ix is not None and ephemeral) else None,
            "interaction_id": ix.id if ix is not None else None,
            # who got a notification: fixed when the message is sent (edits never ping, ephemerals never do)
            "pinged": set() if ephemeral else self._pinged(msg),
        }
        self._channel_messages[channel_id].append(mid)
        if not ephemeral:
            ch["last_message_id"] = str(mid)
            self._dispatch_message_event("MESSAGE_CREATE", msg)
        self._changed()
        return msg

    def _mention_fields(self, msg: dict[str, Any], allowed: dict[str, Any] | None) -> dict[str, Any]:
        """``mentions`` / ``mention_roles`` / ``mention_everyone`` as Discord fills them for ``msg``'s content.

        Like Discord: with no ``allowed_mentions`` every mention in the content counts (and a reply
        mentions the replied-to author); otherwise only the ``parse`` types, the listed ``users`` /
        ``roles`` that the content mentions, and the replied-to author if ``replied_user``.  @everyone /
        @here and roles that are not mentionable also need the author's MENTION_EVERYONE permission."""
        content = msg["content"] or ""
        if allowed is None:
            parse, users, roles, replied_user = {"users", "roles", "everyone"}, set(), set(), True
        else:
            parse = set(allowed.get("parse") or [])
            users = {int(u) for u in allowed.get("users") or []}
            roles = {int(r) for r in allowed.get("roles") or []}
            replied_user = bool(allowed.get("replied_user"))
        gid = self._channel_guild_id(int(msg["channel_id"]))
        author_id = int(msg["author"]["id"])
        can_ping_all = gid is not None and bool(
            author_id in self._guilds[gid]["members"]
            and self.member_permissions(gid, author_id) & MENTION_EVERYONE
        )
        user_ids = [
            u
            for u in dict.fromkeys(int(x) for x in re.findall(r"<@!?(\d+)>", content))
            if u in self._users and ("users" in parse or u in users)
        ]
        referenced = msg.get("referenced_message")
        if referenced is not None and replied_user and int(referenced["author"]["id"]) not in user_ids:
            user_ids.append(int(referenced["author"]["id"]))
        guild_roles = self._guilds[gid]["roles"] if gid is not None else {}
        role_ids = [
            r
            for r in dict.fromkeys(int(x) for x in re.findall(r"<@&(\d+)>", content))
            if r in guild_roles
            and ("roles" in parse or r in roles)
            and (guild_roles[r]["mentionable"] or can_ping_all)
        ]
        everyone = can_ping_all and "everyone" in parse and ("@everyone" in content or "@here" in content)
        return {
            "mention_everyone": everyone,
            "mentions": [self._users[u] for u in user_ids],
            "mention_roles": sorted(str(r) for r in role_ids),
        }

    def _pinged(self, msg: dict[str, Any]) -> set[int]:
        """Who Discord notifies for ``msg``: its mentioned users, the members of its mentioned roles, and
        with ``mention_everyone`` every member (the fake has no presences, so @here is @everyone); only
        users who can see the channel, never the author."""
        ch = self._channels[int(msg["channel_id"])]
        gid = self._channel_guild_id(int(msg["channel_id"]))
        out = {int(u["id"]) for u in msg["mentions"]}
        if gid is None:
            out &= {ch["_recipient"], self.bot_user_id}
        else:
            members = self._guilds[gid]["members"]
            out &= set(members)
            roles = {int(r) for r in msg["mention_roles"]}
            out |= {u for u, m in members.items() if roles & set(m["roles"])}
            if msg["mention_everyone"]:
                out |= set(members)
        out.discard(int(msg["author"]["id"]))
        return out

    def _dispatch_message_event(self, event: str, msg: dict[str, Any]) -> None:
        mid = int(msg["id"])
        gid = self._msg_meta[mid]["guild_id"]
        data = {k: v for k, v in msg.items() if k != "reactions" or v}
        session = self._session_for(gid)
        if (
            session is not None
            and gid is not None
            and not session.intents & INTENT_MESSAGE_CONTENT
            and int(msg["author"]["id"]) != self.bot_user_id
            and not any(int(u["id"]) == self.bot_user_id for u in msg.get("mentions", []))
        ):
            data.update(content="", embeds=[], attachments=[], components=[])  # no MESSAGE_CONTENT intent
        if gid is not None:
            data["guild_id"] = str(gid)
            author = int(msg["author"]["id"])
            if author in self._guilds[gid]["members"]:
                data["member"] = self._member_obj(gid, author, with_user=False)
        self._dispatch_about_message(event, data, gid)

    def _dispatch_about_message(self, event: str, data: dict[str, Any], gid: int | None) -> None:
        """Dispatch a MESSAGE_* event under the intent Discord needs for it (guild or DM, reaction or not)."""
        if gid is not None:
            data.setdefault("guild_id", str(gid))
        if event.startswith("MESSAGE_REACTION_"):
            intent = INTENT_GUILD_MESSAGE_REACTIONS if gid else INTENT_DIRECT_MESSAGE_REACTIONS
        else:
            intent = INTENT_GUILD_MESSAGES if gid else INTENT_DIRECT_MESSAGES
        self._dispatch(event, data, guild_id=gid, intent=intent)

    def _edit_message(
        self, mid: int, payload: dict[str, Any], files: dict[int, tuple[str, str | None, bytes]]
    ) -> dict[str, Any]:
        msg = self._messages.get(mid)
        if msg is None or self._msg_meta[mid]["deleted"]:
            raise ApiError(404, 10008, "Unknown Message")
        payload = payload or {}
        self._check_files(files)
        errors, _ = validate_message(
            {**payload, "flags": payload.get("flags", msg["flags"])}, has_files=bool(files), partial=True
        )
        if errors:
            raise invalid_form(errors)
        for key in ("content", "components"):
            if key in payload:
                msg[key] = payload[key] if payload[key] is not None else ("" if key == "content" else [])
        if "content" in payload or "allowed_mentions" in payload:
            # Discord does not keep allowed_mentions: an edit re-parses with the edit's own (or none)
            msg.update(self._mention_fields(msg, payload.get("allowed_mentions")))
        if "attachments" in payload or files:
            msg["attachments"] = self._make_attachments(
                payload.get("attachments"),
                files,
                msg["attachments"],
                ephemeral=self._msg_meta[mid]["ephemeral"],
            )
        if "embeds" in payload:
            msg["embeds"] = self._fix_embed_attachment_urls(payload["embeds"] or [], msg["attachments"])
        if "flags" in payload and payload["flags"] is not None:
            keep = msg["flags"] & (EPHEMERAL | LOADING)
            msg["flags"] = keep | (int(payload["flags"]) & ((1 << 2) | (1 << 15)))
        msg["flags"] &= ~LOADING
        msg["edited_timestamp"] = iso_now()
        if not self._msg_meta[mid]["ephemeral"]:
            self._dispatch_message_event("MESSAGE_UPDATE", msg)
        self._changed()
        return msg

    def _delete_message(self, mid: int) -> None:
        msg = self._messages.get(mid)
        if msg is None or self._msg_meta[mid]["deleted"]:
            raise ApiError(404, 10008, "Unknown Message")
        self._msg_meta[mid]["deleted"] = True
        cid = int(msg["channel_id"])
        self._channel_messages[cid] = [m for m in self._channel_messages[cid] if m != mid]
        gid = self._msg_meta[mid]["guild_id"]
        if not self._msg_meta[mid]["ephemeral"]:
            self._dispatch_about_message("MESSAGE_DELETE", {"id": str(mid), "channel_id": str(cid)}, gid)
        self._changed()

    def _sync_reactions_field(self, mid: int) -> None:
        msg = self._messages[mid]
        msg["reactions"] = [
            {
                "emoji": emoji_obj(k),
                "count": len(users),
                "count_details": {"burst": 0, "normal": len(users)},
                "me": self.bot_user_id in users,
                "me_burst": False,
                "burst_colors": [],
            }
            for k, users in self._reactions.get(mid, {}).items()
            if users
        ]

    def _react(self, mid: int, user_id: int, emoji: str, add: bool) -> bool:
        key = emoji_key(emoji)
        msg = self._messages[mid]
        users = self._reactions.setdefault(mid, {}).setdefault(key, {})
        if add == (user_id in users):
            return False
        if add:
            users[user_id] = None
        else:
            del users[user_id]
            if not users:
                del self._reactions[mid][key]
        self._sync_reactions_field(mid)
        gid = self._msg_meta[mid]["guild_id"]
        data: dict[str, Any] = {
            "user_id": str(user_id),
            "channel_id": msg["channel_id"],
            "message_id": str(mid),
            "emoji": emoji_obj(key),
            "burst": False,
            "type": 0,
        }
        if gid is not None:
            data["guild_id"] = str(gid)
        if add:
            data["message_author_id"] = msg["author"]["id"]
            data["burst_colors"] = []
            if gid is not None and user_id in self._guilds[gid]["members"]:
                data["member"] = self._member_obj(gid, user_id)
        self._dispatch_about_message("MESSAGE_REACTION_ADD" if add else "MESSAGE_REACTION_REMOVE", data, gid)
        self._changed()
        return True
