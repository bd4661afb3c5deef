"""The fake's world: users, guilds, channels, roles, members, permissions and DM channels."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import ApiError, FakeBase
from .constants import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    ATTACH_FILES,
    DEFAULT_MEMBER_PERMISSIONS,
    EMBED_LINKS,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILDS,
    MENTION_EVERYONE,
    SEND_MESSAGES,
    VIEW_CHANNEL,
)
from .models import iso_now

ROLE_OVERWRITE, MEMBER_OVERWRITE = 0, 1  # a permission overwrite's type


class World(FakeBase):
    def _init_world(self, bot_name: str) -> None:
        self.bot_user: dict[str, Any] = {
            "id": str(self.bot_user_id),
            "username": bot_name,
            "global_name": None,
            "discriminator": "0000",
            "avatar": None,
            "bot": True,
            "system": False,
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "public_flags": 0,
            "banner": None,
            "accent_color": None,
            "email": None,
            "locale": "en-US",
        }
        self._users: dict[int, dict[str, Any]] = {self.bot_user_id: self.bot_user}
        self._dms_closed: set[int] = set()
        # id -> {"data": guild fields, "roles": {}, "members": {}, "channels": [ids], "joined_at": ...}
        self._guilds: dict[int, dict[str, Any]] = {}
        self._channels: dict[int, dict[str, Any]] = {}
        self._dm_channels: dict[int, int] = {}  # user id -> channel id

    # ------------------------------------------------------------------ world setup

    def add_user(self, user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
        user = self._users.get(user_id)
        if user is None:
            user = {
                "id": str(user_id),
                "username": name,
                "global_name": name,
                "discriminator": "0",
                "avatar": None,
                "bot": bot,
                "system": False,
                "public_flags": 0,
                "flags": 0,
                "banner": None,
                "accent_color": None,
                "avatar_decoration_data": None,
            }
            self._users[user_id] = user
        self._changed()
        return user

    def set_dms_closed(self, user_id: int, closed: bool = True) -> None:
        if closed:
            self._dms_closed.add(user_id)
        else:
            self._dms_closed.discard(user_id)

    def add_guild(
        self, guild_id: int, name: str = "Test Guild", owner_id: int | None = None, *, announce: bool = True
    ) -> dict[str, Any]:
        """A server with the bot in it. Its GUILD_CREATE goes to a connected bot as a server becoming
        available; `announce=False` sends none, so that `bot_joins` can play the bot being added later
        (after the test gave the server its channels)."""
        if guild_id in self._guilds:
            return self._guilds[guild_id]["data"]
        owner = owner_id if owner_id is not None else self.owner_id
        data = {
            "id": str(guild_id),
            "name": name,
            "icon": None,
            "icon_hash": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(owner),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_presences": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "nsfw_level": 0,
            "nsfw": False,
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
            "incidents_data": None,
            "emojis": [],
            "stickers": [],
        }
        g = {"data": data, "roles": {}, "members": {}, "channels": [], "joined_at": iso_now()}
        self._guilds[guild_id] = g
        g["roles"][guild_id] = self._role_obj(guild_id, "@everyone", DEFAULT_MEMBER_PERMISSIONS, position=0)
        bot_role_id = self._snowflake()
        role = self._role_obj(
            bot_role_id, self.bot_user["username"], self.bot_permissions, position=1, managed=True
        )
        role["tags"] = {"bot_id": str(self.bot_user_id)}
        g["roles"][bot_role_id] = role
        g["members"][self.bot_user_id] = self._member_record([bot_role_id])
        if owner not in self._users:
            self.add_user(owner, "GuildOwner")
        if owner != self.bot_user_id:
            g["members"].setdefault(owner, self._member_record())
        session = self._session_for(guild_id)
        if session is not None and announce:
            self._dispatch(
                "GUILD_CREATE",
                self._guild_create_payload(guild_id, session.intents),
                guild_id=guild_id,
                intent=INTENT_GUILDS,
            )
        self._changed()
        return data

    def _role_obj(
        self, role_id: int, name: str, permissions: int, *, position: int, managed: bool = False
    ) -> dict[str, Any]:
        return {
            "id": str(role_id),
            "name": name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": position,
            "permissions": str(permissions),
            "managed": managed,
            "mentionable": False,
            "flags": 0,
        }

    def _guild(self, guild_id: int) -> dict[str, Any]:
        try:
            return self._guilds[guild_id]
        except KeyError:
            raise KeyError(f"fake Discord: unknown guild {guild_id}; call add_guild() first") from None

    def add_channel(
        self, guild_id: int, channel_id: int, name: str = "general", *, type: int = 0
    ) -> dict[str, Any]:
        g = self._guild(guild_id)
        ch = {
            "id": str(channel_id),
            "type": type,
            "guild_id": str(guild_id),
            "name": name,
            "position": len(g["channels"]),
            "permission_overwrites": [],
            "parent_id": None,
            "nsfw": False,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        self._channels[channel_id] = ch
        g["channels"].append(channel_id)
        if g["data"]["system_channel_id"] is None and type == 0:
            g["data"]["system_channel_id"] = str(channel_id)
        self._dispatch("CHANNEL_CREATE", ch, guild_id=guild_id, intent=INTENT_GUILDS)
        self._changed()
        return ch

    def bot_joins(self, guild_id: int) -> bool:
        """The bot is added to the server: Discord's GUILD_CREATE for a join, which (unlike a server
        becoming available) has no `unavailable` field, so discord.py calls `on_guild_join`."""
        session = self._session_for(guild_id)
        if session is None:
            return False
        payload = self._guild_create_payload(guild_id, session.intents)
        del payload["unavailable"]
        return self._dispatch("GUILD_CREATE", payload, guild_id=guild_id, intent=INTENT_GUILDS)

    def set_system_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Where Discord posts its system messages (and a bot's greeting may go); None for none."""
        self._guild(guild_id)["data"]["system_channel_id"] = None if channel_id is None else str(channel_id)
        self._changed()

    def add_role(self, guild_id: int, role_id: int, name: str, permissions: int = 0) -> dict[str, Any]:
        g = self._guild(guild_id)
        role = self._role_obj(role_id, name, permissions, position=len(g["roles"]))
        g["roles"][role_id] = role
        self._dispatch(
            "GUILD_ROLE_CREATE",
            {"guild_id": str(guild_id), "role": role},
            guild_id=guild_id,
            intent=INTENT_GUILDS,
        )
        self._changed()
        return role

    def bot_role_id(self, guild_id: int) -> int:
        """The bot's own (managed) role in the guild, which carries `bot_permissions`."""
        roles = self._guild(guild_id)["roles"]
        return next(r for r, role in roles.items() if (role.get("tags") or {}).get("bot_id") == str(self.bot_user_id))

    def set_role_permissions(self, guild_id: int, role_id: int, permissions: int) -> dict[str, Any]:
        """Change a role's permissions (e.g. the bot's role, see `bot_role_id`); GUILD_ROLE_UPDATE."""
        role = self._guild(guild_id)["roles"][role_id]
        role["permissions"] = str(permissions)
        self._dispatch("GUILD_ROLE_UPDATE", {"guild_id": str(guild_id), "role": role}, guild_id=guild_id,
                       intent=INTENT_GUILDS)
        self._changed()
        return role

    def set_permission_overwrite(
        self, channel_id: int, target_id: int, *, allow: int = 0, deny: int = 0, member: bool = False
    ) -> dict[str, Any]:
        """Set (or, with allow = deny = 0, remove) a channel's overwrite for a role (the guild's id is
        @everyone) or a member; CHANNEL_UPDATE. Channel permissions follow Discord's order: the base
        from roles, then @everyone's overwrite, the member's roles' (together), the member's own."""
        ch = self._channels[channel_id]
        overwrites = [o for o in ch["permission_overwrites"] if o["id"] != str(target_id)]
        if allow or deny:
            overwrites.append({"id": str(target_id), "type": MEMBER_OVERWRITE if member else ROLE_OVERWRITE,
                               "allow": str(allow), "deny": str(deny)})
        ch["permission_overwrites"] = overwrites
        gid = int(ch["guild_id"])
        self._dispatch("CHANNEL_UPDATE", ch, guild_id=gid, intent=INTENT_GUILDS)
        self._changed()
        return ch

    def channel_permissions(self, channel_id: int, user_id: int) -> int:
        """What `user_id` may do in the guild channel `channel_id` (Discord's computation)."""
        ch = self._channels[channel_id]
        gid = int(ch["guild_id"])
        perms = self.member_permissions(gid, user_id)
        if perms & ADMINISTRATOR or perms == ALL_PERMISSIONS:
            return ALL_PERMISSIONS
        overwrites = {(int(o["id"]), o["type"]): (int(o["allow"]), int(o["deny"])) for o in ch["permission_overwrites"]}
        allow, deny = overwrites.get((gid, ROLE_OVERWRITE), (0, 0))
        perms = (perms & ~deny) | allow
        allow = deny = 0
        for role in self._guild(gid)["members"][user_id]["roles"]:
            role_allow, role_deny = overwrites.get((int(role), ROLE_OVERWRITE), (0, 0))
            allow, deny = allow | role_allow, deny | role_deny
        perms = (perms & ~deny) | allow
        allow, deny = overwrites.get((user_id, MEMBER_OVERWRITE), (0, 0))
        perms = (perms & ~deny) | allow
        if not perms & VIEW_CHANNEL:
            return 0
        if not perms & SEND_MESSAGES:  # what only sending uses goes with it
            perms &= ~(EMBED_LINKS | ATTACH_FILES | MENTION_EVERYONE)
        return perms

    def add_member(
        self,
        guild_id: int,
        user_id: int,
        name: str,
        *,
        roles: Iterable[int] = (),
        permissions: int | None = None,
    ) -> dict[str, Any]:
        g = self._guild(guild_id)
        self.add_user(user_id, name)
        existed = user_id in g["members"]
        g["members"][user_id] = self._member_record(roles, permissions)
        return self._member_changed(
            guild_id, user_id, "GUILD_MEMBER_UPDATE" if existed else "GUILD_MEMBER_ADD"
        )

    def set_member_roles(self, guild_id: int, user_id: int, roles: Iterable[int]) -> None:
        g = self._guild(guild_id)
        g["members"][user_id]["roles"] = [int(r) for r in roles]
        self._member_changed(guild_id, user_id, "GUILD_MEMBER_UPDATE")

    @staticmethod
    def _member_record(roles: Iterable[int] = (), permissions: int | None = None) -> dict[str, Any]:
        """A member as the fake stores it (``permissions`` not None: fixed, overriding roles)."""
        return {
            "roles": [int(r) for r in roles],
            "permissions": permissions,
            "joined_at": iso_now(),
            "nick": None,
        }

    def _member_changed(self, guild_id: int, user_id: int, event: str) -> dict[str, Any]:
        member = self._member_obj(guild_id, user_id)
        self._dispatch(
            event, {**member, "guild_id": str(guild_id)}, guild_id=guild_id, intent=INTENT_GUILD_MEMBERS
        )
        self._changed()
        return member

    # ------------------------------------------------------------------ object builders

    def _user(self, user_id: int) -> dict[str, Any]:
        try:
            return self._users[user_id]
        except KeyError:
            raise KeyError(
                f"fake Discord: unknown user {user_id}; call add_user()/add_member() first"
            ) from None

    def member_permissions(self, guild_id: int, user_id: int) -> int:
        g = self._guild(guild_id)
        m = g["members"].get(user_id)
        if m is None:
            raise KeyError(f"fake Discord: user {user_id} is not a member of guild {guild_id}")
        if m["permissions"] is not None:
            return int(m["permissions"])
        if int(g["data"]["owner_id"]) == user_id:
            return ALL_PERMISSIONS
        perms = int(g["roles"][guild_id]["permissions"])
        for rid in m["roles"]:
            role = g["roles"].get(rid)
            if role is not None:
                perms |= int(role["permissions"])
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def _member_obj(
        self, guild_id: int, user_id: int, *, with_user: bool = True, with_permissions: bool = False
    ) -> dict[str, Any]:
        m = self._guild(guild_id)["members"][user_id]
        out: dict[str, Any] = {
            "roles": [str(r) for r in m["roles"]],
            "joined_at": m["joined_at"],
            "nick": m["nick"],
            "avatar": None,
            "banner": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            out["user"] = self._user(user_id)
        if with_permissions:
            out["permissions"] = str(self.member_permissions(guild_id, user_id))
        return out

    def _guild_create_payload(self, guild_id: int, intents: int | None = None) -> dict[str, Any]:
        g = self._guild(guild_id)
        members = list(g["members"])
        if intents is not None and not intents & INTENT_GUILD_MEMBERS:
            members = [self.bot_user_id]
        return {
            **g["data"],
            "roles": list(g["roles"].values()),
            "channels": [self._channels[c] for c in g["channels"]],
            "members": [self._member_obj(guild_id, u) for u in members],
            "member_count": len(g["members"]),
            "joined_at": g["joined_at"],
            "large": False,
            "unavailable": False,
            "lazy": True,
            "voice_states": [],
            "presences": [],
            "threads": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "application_command_counts": {},
        }

    def _guild_rest_payload(self, guild_id: int) -> dict[str, Any]:
        g = self._guild(guild_id)
        return {
            **g["data"],
            "roles": list(g["roles"].values()),
            "approximate_member_count": len(g["members"]),
            "approximate_presence_count": 0,
        }

    def _dm_channel(self, user_id: int) -> dict[str, Any]:
        cid = self._dm_channels.get(user_id)
        if cid is None:
            cid = self._snowflake()
            self._dm_channels[user_id] = cid
            self._channels[cid] = {
                "id": str(cid),
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self._user(user_id)],
                "_recipient": user_id,
            }
            self._changed()
        return self._channels[cid]

    @staticmethod
    def _public(obj: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if not k.startswith("_")}

    def _channel(self, channel_id: int) -> dict[str, Any]:
        ch = self._channels.get(channel_id)
        if ch is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return ch

    def _channel_guild_id(self, channel_id: int) -> int | None:
        gid = self._channels.get(channel_id, {}).get("guild_id")
        return int(gid) if gid else None
