"""Discord's numbers the fake uses: API prefix, permission bits, gateway intents, message flags, ids."""

from __future__ import annotations

API_PREFIX = "/api/v10"

# uploads: files per message, and bytes per message (a bot's limit in a server without boosts)
MAX_FILES = 10
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024

# permission bits
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
MENTION_EVERYONE = 1 << 17  # also lets a role that is not mentionable be mentioned
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
ALL_PERMISSIONS = (1 << 51) - 1
DEFAULT_MEMBER_PERMISSIONS = (
    (1 << 0)  # create instant invite
    | (1 << 6)  # add reactions
    | (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 14)  # embed links
    | (1 << 15)  # attach files
    | (1 << 16)  # read message history
    | (1 << 17)  # mention everyone
    | (1 << 18)  # use external emojis
    | (1 << 20)  # connect
    | (1 << 21)  # speak
    | (1 << 25)  # use VAD
    | (1 << 26)  # change nickname
    | (1 << 31)  # use application commands
    | (1 << 35)  # send messages in threads
    | (1 << 38)  # use embedded activities
)

# gateway intents
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_GUILD_MESSAGE_REACTIONS = 1 << 10
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_DIRECT_MESSAGE_REACTIONS = 1 << 13
INTENT_MESSAGE_CONTENT = 1 << 15

# A message created with `enforce_nonce` returns the message the same author created in the same
# channel with the same nonce this many seconds before, instead of a second one ("a few minutes").
NONCE_WINDOW = 300.0

EPHEMERAL = 1 << 6
LOADING = 1 << 7

DEFAULT_BOT_USER_ID = 1098765432109876543
DEFAULT_OWNER_ID = 1012345678901234567
