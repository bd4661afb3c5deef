"""Draft pods: lobby, picks, timers, deliveries and pools, one module per use case.

- `state`: loading a pod (with its engine and bookkeeping documents) and the views cogs render;
- `lobby`: the table spec, creation and the deal when the pod begins;
- `picking`: picks by players, the timer and bot seats, handing a seat to a bot and back;
- `timers`: the pick timer's deadline handler;
- `deliveries`: the messages a draft owes (outbox kinds) and which message shows which pack;
- `reactions`: picks by letter reaction on a player's one reused pack message, and reconciling
  the reactions made while the bot was away;
- `pools`: what players picked, the pick log, card data.
"""

from bot.games.draft.service.deliveries import (
    CLOSE_PACK,
    DMS_CLOSED,
    FINAL_POOL,
    NOTICE,
    PACK,
    REACTION_CARDS,
    REMINDER,
    RETIRE,
    SUMMARY,
    TIMED_OUT,
    WATCHING,
    Closed,
    ClosePack,
    DeliveryRef,
    FinalPool,
    MessageRef,
    Notice,
    PackPost,
    Picked,
    PodRef,
    TimedOut,
    adopt_unrecorded_message,
    current_prompt,
    delivery_for_message,
    delivery_message,
    is_head,
    is_shown,
    last_shown,
    notice_to_replace,
    pack_post,
    prompt_of,
    record_shown,
    resend,
    shows_in_place,
    still_current,
    uses_reactions,
)
from bot.games.draft.service.lobby import (
    MAX_PICK_TIMER,
    MIN_PICK_TIMER,
    SPEC,
    BeginResult,
    GoldfishOptions,
    begin,
    cancel,
    create_pod,
    create_rotisserie_pod,
    create_set_pod,
    find_pod,
    get_pod,
    join,
    leave,
    set_lobby_message,
)
from bot.games.draft.service.picking import (
    COMPLETE,
    PickResult,
    RejoinResult,
    SeatHandover,
    bot_seats,
    hand_seat,
    pick,
    rejoin,
    replace_with_bot,
)
from bot.games.draft.service.pools import (
    LOG_FORMATS,
    CardFacts,
    LogFile,
    PoolView,
    all_pools,
    cards_to_show,
    count_picks,
    draft_log,
    draft_record,
    final_pool_of,
    log_names,
    pool,
    summary_of,
)
from bot.games.draft.service.reactions import (
    CONFIRM,
    Closing,
    Confirmation,
    FinalPoolTarget,
    NoticeTarget,
    PackMessage,
    Toggle,
    claim_confirmation,
    closing_target,
    final_pool_target,
    merge_confirmation,
    notice_target,
    pack_message,
    pack_message_of,
    pack_target,
    set_letters,
)
from bot.games.draft.service.state import (
    STATUSES,
    PackPrompt,
    PodView,
    SeatView,
    SeatWait,
    is_bot_user,
    seat_name,
)
from bot.games.draft.service.timers import TIMEOUTS_BEFORE_BOT, TimerActions, sweep_timers

__all__ = [
    "CLOSE_PACK", "CONFIRM", "DMS_CLOSED", "FINAL_POOL", "MAX_PICK_TIMER", "MIN_PICK_TIMER", "NOTICE", "Notice", "WATCHING",
    "is_head", "notice_to_replace", "PACK", "REMINDER", "RETIRE",
    "SPEC", "STATUSES", "SUMMARY", "TIMED_OUT", "TIMEOUTS_BEFORE_BOT", "COMPLETE", "BeginResult", "DeliveryRef", "GoldfishOptions", "PackPrompt",
    "PackMessage", "PickResult", "PodView", "REACTION_CARDS", "Toggle", "claim_confirmation", "merge_confirmation", "pack_message",
    "pack_message_of", "set_letters", "uses_reactions", "PoolView", "SeatView", "adopt_unrecorded_message", "all_pools", "begin", "cancel", "cards_to_show",
    "count_picks", "create_pod", "create_rotisserie_pod", "create_set_pod", "current_prompt", "delivery_for_message", "delivery_message", "find_pod", "get_pod",
    "is_shown", "join", "last_shown", "leave", "pick", "pool", "LOG_FORMATS", "LogFile", "draft_log", "draft_record", "log_names", "prompt_of", "record_shown", "rejoin",
    "RejoinResult", "replace_with_bot", "resend", "shows_in_place", "summary_of", "Closing", "NoticeTarget",
    "closing_target", "notice_target", "final_pool_of", "PackTarget", "pack_target",
    "FinalPoolTarget", "final_pool_target", "SeatWait",
    "set_lobby_message", "still_current", "sweep_timers", "TimerActions", "is_bot_user", "seat_name", "SeatHandover", "bot_seats", "hand_seat",
    "CardFacts", "ClosePack", "Closed", "Confirmation", "FinalPool", "MessageRef", "PackPost", "pack_post", "Picked", "PodRef", "TimedOut",
]
