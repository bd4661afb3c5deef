"""Application commands: what the bot syncs over REST, and how a Discord client turns a user's
``/command`` into interaction data (lookup, context and permission checks, options and their values)."""

from __future__ import annotations

from typing import Any

from .base import ApiError, FakeBase, invalid_form
from .constants import ADMINISTRATOR, ALL_PERMISSIONS
from .models import CommandNotAvailable, FakeDiscordTimeout
from .rest import Req
from .validation import validate_commands

OPTION_TYPE_NAMES = {
    1: "SUB_COMMAND",
    2: "SUB_COMMAND_GROUP",
    3: "STRING",
    4: "INTEGER",
    5: "BOOLEAN",
    6: "USER",
    7: "CHANNEL",
    8: "ROLE",
    9: "MENTIONABLE",
    10: "NUMBER",
    11: "ATTACHMENT",
}


class Commands(FakeBase):
    def _init_commands(self) -> None:
        self._commands: dict[int | None, list[dict[str, Any]]] = {}
        self._command_ids: dict[tuple[int | None, str, int], int] = {}

    def _check_app(self, r: Req) -> int | None:
        if int(r.params["application_id"]) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")
        gid = r.params.get("guild_id")
        if gid is not None and int(gid) not in self._guilds:
            raise ApiError(403, 50001, "Missing Access")
        return int(gid) if gid is not None else None

    def _store_command(self, scope: int | None, cmd: dict[str, Any], version: int) -> dict[str, Any]:
        ctype = cmd.get("type", 1)
        key = (scope, cmd["name"], ctype)
        cid = self._command_ids.get(key)
        if cid is None:
            cid = self._command_ids[key] = self._snowflake()
        stored = {
            "id": str(cid),
            "application_id": str(self.application_id),
            "version": str(version),
            "type": ctype,
            "name": cmd["name"],
            "description": cmd.get("description", "") if ctype == 1 else "",
            "options": cmd.get("options") or [],
            "default_member_permissions": cmd.get("default_member_permissions"),
            "dm_permission": cmd.get("dm_permission", True),
            "nsfw": cmd.get("nsfw", False),
            "name_localizations": cmd.get("name_localizations"),
            "description_localizations": cmd.get("description_localizations"),
            "contexts": cmd.get("contexts"),
            "integration_types": cmd.get("integration_types") or [0],
        }
        if scope is not None:
            stored["guild_id"] = str(scope)
        return stored

    async def _r_put_commands(self, r: Req) -> tuple[int, Any]:
        scope = self._check_app(r)
        errors = validate_commands(r.json)
        if errors:
            raise invalid_form(errors)
        version = self._snowflake()
        self._commands[scope] = [self._store_command(scope, c, version) for c in r.json]
        return 200, self._commands[scope]

    async def _r_get_commands(self, r: Req) -> tuple[int, Any]:
        return 200, self._commands.get(self._check_app(r), [])

    async def _r_post_command(self, r: Req) -> tuple[int, Any]:
        scope = self._check_app(r)
        errors = validate_commands([r.json])
        if errors:
            raise invalid_form(errors)
        stored = self._store_command(scope, r.json, self._snowflake())
        cmds = [
            c
            for c in self._commands.get(scope, [])
            if not (c["name"] == stored["name"] and c["type"] == stored["type"])
        ]
        self._commands[scope] = [*cmds, stored]
        return 201, stored

    def _find_command_by_id(self, r: Req) -> tuple[int | None, dict[str, Any]]:
        scope = self._check_app(r)
        for c in self._commands.get(scope, []):
            if c["id"] == r.params["command_id"]:
                return scope, c
        raise ApiError(404, 10063, "Unknown application command")

    async def _r_get_command(self, r: Req) -> tuple[int, Any]:
        return 200, self._find_command_by_id(r)[1]

    async def _r_patch_command(self, r: Req) -> tuple[int, Any]:
        _, c = self._find_command_by_id(r)
        c.update({k: v for k, v in (r.json or {}).items() if k in c})
        return 200, c

    async def _r_delete_command(self, r: Req) -> tuple[int, Any]:
        scope, c = self._find_command_by_id(r)
        self._commands[scope] = [x for x in self._commands[scope] if x is not c]
        return 204, None

    def synced_commands(self, guild_id: int | None = None) -> list[dict[str, Any]]:
        return list(self._commands.get(guild_id, []))

    # ---- slash commands

    def _lookup_command(self, name: str, guild_id: int | None) -> dict[str, Any] | None:
        scopes = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            for c in self._commands.get(scope, []):
                if c["name"] == name and c.get("type", 1) == 1:
                    return c
        return None

    async def _find_command(self, name: str, guild_id: int | None, timeout: float) -> dict[str, Any]:
        def synced_names() -> list[str]:
            return sorted({c["name"] for s in {None, guild_id} for c in self._commands.get(s, [])})

        if synced_names() and self._shard_sessions and self._lookup_command(name, guild_id) is None:
            # the bot synced and connected already: a missing name is a typo / unregistered command
            raise CommandNotAvailable(
                f"no synced command {name!r} (scope guild={guild_id}); synced: {synced_names()}"
            )
        try:
            return await self.wait_for(
                lambda: self._lookup_command(name, guild_id),
                timeout=timeout,
                what=f"the bot to sync a command named {name!r}",
            )
        except FakeDiscordTimeout:
            raise CommandNotAvailable(
                f"no synced command {name!r} (scope guild={guild_id}); synced: {synced_names()}"
            ) from None

    def _check_command_allowed(
        self, cmd: dict[str, Any], user_id: int, guild_id: int | None, enforce_permissions: bool = True
    ) -> None:
        contexts = cmd.get("contexts")
        if guild_id is None:
            if "guild_id" in cmd:
                raise CommandNotAvailable(f"/{cmd['name']} is a guild command; it does not exist in DMs")
            if (contexts is not None and 1 not in contexts) or (
                contexts is None and cmd.get("dm_permission") is False
            ):
                raise CommandNotAvailable(f"/{cmd['name']} is not available in DMs (contexts={contexts})")
            return
        if contexts is not None and 0 not in contexts:
            raise CommandNotAvailable(f"/{cmd['name']} is not available in guilds (contexts={contexts})")
        required = cmd.get("default_member_permissions")
        if required is not None and enforce_permissions:
            perms = self.member_permissions(guild_id, user_id)
            # "0" means: administrators only
            if not perms & ADMINISTRATOR and (int(required) == 0 or (perms & int(required)) != int(required)):
                raise CommandNotAvailable(
                    f"user {user_id} lacks default_member_permissions={required} for /{cmd['name']} "
                    f"(has {perms}); Discord would not show them the command (pass enforce_permissions=False "
                    "to send it anyway and test the bot's own check)"
                )

    def _build_command_data(
        self,
        cmd: dict[str, Any],
        path: list[str],
        options: dict[str, Any],
        guild_id: int | None,
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if "guild_id" in cmd:
            data["guild_id"] = cmd["guild_id"]
        node_opts: list[dict[str, Any]] = cmd.get("options") or []
        target: list[dict[str, Any]] = []
        data["options"] = target
        walked = [cmd["name"]]
        for seg in path:
            sub = next((o for o in node_opts if o["name"] == seg and o["type"] in (1, 2)), None)
            if sub is None:
                subs = [o["name"] for o in node_opts if o["type"] in (1, 2)]
                raise CommandNotAvailable(f"/{' '.join(walked)} has no subcommand {seg!r}; has {subs}")
            walked.append(seg)
            nested: list[dict[str, Any]] = []
            target.append({"type": sub["type"], "name": seg, "options": nested})
            target, node_opts = nested, sub.get("options") or []
        subs = [o["name"] for o in node_opts if o["type"] in (1, 2)]
        if subs:
            raise CommandNotAvailable(f"/{' '.join(walked)} needs a subcommand: {subs}")
        resolved: dict[str, dict[str, Any]] = {}
        specs = {o["name"]: o for o in node_opts}
        unknown = set(options) - set(specs)
        if unknown:
            raise CommandNotAvailable(
                f"/{' '.join(walked)} has no option(s) {sorted(unknown)}; options: {sorted(specs)}"
            )
        if focused is not None and focused not in specs:
            raise CommandNotAvailable(
                f"/{' '.join(walked)} has no option {focused!r}; options: {sorted(specs)}"
            )
        for spec in node_opts:
            name = spec["name"]
            if name == focused:
                target.append(
                    {
                        "type": spec["type"],
                        "name": name,
                        "value": str(options.get(name) or ""),
                        "focused": True,
                    }
                )
                continue
            if options.get(name) is None:
                if spec.get("required") and focused is None:
                    raise CommandNotAvailable(f"/{' '.join(walked)}: required option {name!r} missing")
                continue
            target.append(
                {
                    "type": spec["type"],
                    "name": name,
                    "value": self._option_value(spec, options[name], resolved, guild_id, walked),
                }
            )
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(
        self,
        spec: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
        walked: list[str],
    ) -> Any:
        t, name = spec["type"], spec["name"]
        where = f"/{' '.join(walked)} option {name!r} ({OPTION_TYPE_NAMES.get(t, t)})"

        def snowflake(v: Any) -> int:
            if isinstance(v, dict):
                v = v["id"]
            if isinstance(v, bool):
                raise CommandNotAvailable(f"{where}: expected an id, got {v!r}")
            return int(v)

        if t == 3:
            value = str(value)
            if spec.get("min_length") is not None and len(value) < spec["min_length"]:
                raise CommandNotAvailable(f"{where}: shorter than min_length {spec['min_length']}")
            if spec.get("max_length") is not None and len(value) > spec["max_length"]:
                raise CommandNotAvailable(f"{where}: longer than max_length {spec['max_length']}")
        elif t == 4:
            if isinstance(value, bool) or int(value) != value:
                raise CommandNotAvailable(f"{where}: {value!r} is not an integer")
            value = int(value)
        elif t == 10:
            value = float(value)
        elif t == 5:
            if not isinstance(value, bool):
                raise CommandNotAvailable(f"{where}: {value!r} is not a bool")
        elif t in (6, 9) and (t == 6 or snowflake(value) in self._users):
            uid = snowflake(value)
            if uid not in self._users:
                raise CommandNotAvailable(f"{where}: unknown user {uid}")
            resolved.setdefault("users", {})[str(uid)] = self._user(uid)
            if guild_id is not None and uid in self._guilds[guild_id]["members"]:
                resolved.setdefault("members", {})[str(uid)] = self._member_obj(
                    guild_id, uid, with_user=False, with_permissions=True
                )
            value = str(uid)
        elif t in (8, 9):
            rid = snowflake(value)
            if guild_id is None or rid not in self._guilds[guild_id]["roles"]:
                raise CommandNotAvailable(f"{where}: unknown role {rid} in guild {guild_id}")
            resolved.setdefault("roles", {})[str(rid)] = self._guilds[guild_id]["roles"][rid]
            value = str(rid)
        elif t == 7:
            cid = snowflake(value)
            ch = self._channels.get(cid)
            if ch is None:
                raise CommandNotAvailable(f"{where}: unknown channel {cid}")
            if spec.get("channel_types") and ch["type"] not in spec["channel_types"]:
                raise CommandNotAvailable(
                    f"{where}: channel type {ch['type']} not in {spec['channel_types']}"
                )
            entry = {
                k: ch[k]
                for k in ("id", "name", "type", "parent_id", "guild_id", "topic", "nsfw", "position")
                if k in ch
            }
            entry["permissions"] = str(
                ALL_PERMISSIONS if guild_id is None else self.member_permissions(guild_id, self.bot_user_id)
            )
            resolved.setdefault("channels", {})[str(cid)] = entry
            value = str(cid)
        elif t == 11:
            if not (isinstance(value, tuple) and len(value) == 2):
                raise CommandNotAvailable(f"{where}: pass attachments as (filename, bytes)")
            att = self._new_attachment(value[0], value[1], ephemeral=True)
            resolved.setdefault("attachments", {})[att["id"]] = att
            value = att["id"]
        if t in (4, 10) and not isinstance(value, bool):
            if spec.get("min_value") is not None and value < spec["min_value"]:
                raise CommandNotAvailable(f"{where}: {value} < min_value {spec['min_value']}")
            if spec.get("max_value") is not None and value > spec["max_value"]:
                raise CommandNotAvailable(f"{where}: {value} > max_value {spec['max_value']}")
        if spec.get("choices") and value not in [c["value"] for c in spec["choices"]]:
            raise CommandNotAvailable(
                f"{where}: {value!r} is not one of the choices {[c['value'] for c in spec['choices']]}"
            )
        return value
