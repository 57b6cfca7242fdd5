"""Every setting of roomsync, with its default and what it is for.

Sources, strongest first: keyword arguments (tests), ``ROOMSYNC_*`` environment variables, the
TOML file named by ``ROOMSYNC_CONFIG`` (``config/roomsync.toml`` is the documented example), then
the defaults below. :func:`load_settings` turns any bad value into one :class:`SettingsError`
whose message names the setting and what is allowed.
"""

from __future__ import annotations

import os
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from roomsync.core.codec import PayloadFormat

CONFIG_ENV = "ROOMSYNC_CONFIG"


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/roomsync``, else ``~/.local/share/roomsync``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "roomsync"


class UnreadPriceNights(StrEnum):
    """What the channel shows on a night whose PMS price roomsync has not read yet."""

    KEEP = "keep"
    """The channel's own price stays; availability is pushed as for any night."""
    CLOSE = "close"
    """The night is pushed unavailable until its price is known."""


class SettingsError(Exception):
    """A setting has a value roomsync cannot use; the message says which and what is allowed."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="ROOMSYNC_", extra="forbid", validate_default=True, hide_input_in_errors=True
    )

    # --- the service -------------------------------------------------------------------------
    base_url: str = Field("http://127.0.0.1:8765", description="Base URL of the service's API.")
    channel_name: str = Field(
        "RentalChannel", pattern=r"^[A-Za-z0-9_-]+$",
        description="Path segment naming the rental channel in /v1/ChannelManager/{channel}/...",
    )
    payload_format: PayloadFormat = Field(PayloadFormat.JSON, description="Payload format: json or xml.")
    username: str | None = Field(None, description="Token credentials: user name.")
    password: SecretStr | None = Field(None, description="Token credentials: password (never shown).")
    domain: str | None = Field(None, description="Token credentials: the property's domain.")
    api_key: SecretStr | None = Field(
        None, description="Static key sent in auth_header instead of a token (never shown)."
    )
    auth_header: str = Field("apikey", description="Header that carries api_key in static-key mode.")
    property_id: str | None = Field(
        None, description="Key of this property in the database; defaults to domain, else 'default'."
    )

    # --- the daily quota ---------------------------------------------------------------------
    daily_quota: int = Field(1500, gt=0, description="Requests a day the property may make (03).")
    reserve_availability: float = Field(
        0.05, ge=0, lt=1,
        description="Share of the quota kept for guest checks and reservations: availability "
        "pushes are refused once less than this share remains.",
    )
    reserve_prices: float = Field(
        0.15, ge=0, lt=1,
        description="Price pushes are refused once less than this share remains (never more than "
        "spend_share leaves: a hotel that lets roomsync spend 90 % has its prices pushed to 90 %).",
    )
    reserve_reconcile: float = Field(
        0.30, ge=0, lt=1,
        description="Reconciliation reads are refused once less than this share remains (never more "
        "than spend_share leaves).",
    )
    limit_header: str = Field("X-RateLimit-Limit", description="Response header carrying the quota.")
    remaining_header: str = Field(
        "X-RateLimit-Remaining", description="Response header carrying the requests left today."
    )
    reset_header: str = Field(
        "X-RateLimit-Reset", description="Response header carrying the seconds until the quota resets."
    )

    # --- timeouts (seconds) -----------------------------------------------------------------
    connect_timeout: float = Field(5.0, gt=0, description="Seconds to open a connection.")
    read_timeout: float = Field(20.0, gt=0, description="Seconds to wait for a response.")
    write_timeout: float = Field(20.0, gt=0, description="Seconds to send a request body.")
    pool_timeout: float = Field(5.0, gt=0, description="Seconds to wait for a free connection.")
    max_retries: int = Field(4, ge=0, le=10, description="Retries of a retriable failure, each one budgeted.")
    max_retry_wait: float = Field(
        60.0, gt=0,
        description="Longest single wait (seconds) before a retry, a 429's Retry-After included; "
        "a longer wait is reported to the caller instead of slept.",
    )

    # --- storage -----------------------------------------------------------------------------
    data_dir: Path = Field(default_factory=default_data_dir, description="Directory of the SQLite file.")
    database_url: str | None = Field(
        None,
        description="SQLAlchemy URL; default sqlite under data_dir, or postgresql+psycopg://...",
    )

    # --- sync ----------------------------------------------------------------------------------
    horizon_days: int = Field(365, ge=1, le=730, description="Days ahead that are synced (channel max 730).")
    timezone: str = Field(
        "UTC",
        description="The property's local time zone (IANA name, e.g. Europe/Athens): the hours of the "
        "week in which the schedule learns when the front desk changes things.",
    )
    unread_price_nights: UnreadPriceNights = Field(
        UnreadPriceNights.KEEP,
        description="What the channel shows on a night whose PMS price has not been read yet (a first "
        "start the day's budget cannot afford at once): keep (the channel's own price) or close "
        "(unavailable until the price is known); docs/operations.md argues the default.",
    )
    max_dates_per_request: int = Field(
        731, ge=1, description="Most dates, summed over operations, in one PUT Inventory request."
    )
    mapping_file: Path | None = Field(None, description="TOML mapping of room types to listings.")

    # --- webhooks and admin -------------------------------------------------------------------
    webhook_secret: SecretStr | None = Field(
        None, description="HMAC secret of signed webhook deliveries (never shown)."
    )
    webhook_require_signature: bool | None = Field(
        None,
        description="Refuse webhook deliveries not signed with webhook_secret. Unset: required "
        "whenever webhook_secret is set; false accepts unsigned deliveries (said at start).",
    )
    replica_id: str | None = Field(
        None,
        description="Stable name of this roomsync process among those sharing the database: a "
        "restarted process of the same name takes back the webhook events it was applying when it "
        "died at once. Unset: the host name and serve_port.",
    )
    ownership_check_seconds: float = Field(
        10.0, gt=0, le=60,
        description="How often a replica checks which properties it owns (Postgres: takes its share, "
        "gives back what is beyond it); a dead replica's properties are taken within about this long.",
    )
    webhook_token: SecretStr | None = Field(
        None,
        description="Shared token every webhook delivery must carry in webhook_token_header; "
        "unset: no token is asked for (never shown).",
    )
    webhook_token_header: str = Field(
        "X-Webhook-Token", description="Header that carries webhook_token on webhook deliveries."
    )
    webhook_max_body_bytes: int = Field(
        1_048_576, ge=1024, description="Largest webhook body accepted; a larger one is refused with 413."
    )
    sqlite_checkpoint_interval_seconds: float = Field(
        1.0, ge=0,
        description="SQLite only, in `roomsync serve`: how often a background thread copies the "
        "write-ahead log into the database file, so the disk's fsyncs stay off the path of webhook "
        "answers; 0 leaves it to SQLite, which checkpoints inside a commit every 1,000 pages.",
    )
    availability_view_max_age_seconds: float = Field(
        60.0, ge=0,
        description="Age after which the availability view of a night is re-read from the PMS (one "
        "request at guest priority) before a guest check is answered; 0 reads every time.",
    )
    checkout_read_timeout_seconds: float = Field(
        1.5, gt=0, le=2.5,
        description="Longest wait for that PMS read while a guest waits (the channel gives 3 s); "
        "past it the check is answered from the view as it is.",
    )
    webhook_retry_base_seconds: float = Field(
        5.0, gt=0, description="First wait before a webhook event whose processing failed is tried again."
    )
    webhook_retry_max_seconds: float = Field(
        900.0, gt=0, description="Longest wait between two tries of a failing webhook event."
    )
    webhook_max_attempts: int = Field(
        30, ge=1, description="Tries of a webhook event before it is left failed for a person to look at."
    )
    webhook_claim_timeout_seconds: float = Field(
        300.0, ge=0,
        description="A webhook event claimed longer ago than this by a worker that did not finish is "
        "taken over by another worker (the first one died).",
    )
    webhook_hold_expiry_seconds: float = Field(
        86_400.0, gt=0,
        description="A room held for a MakeReservation that no reservation confirmation followed is "
        "released after this many seconds.",
    )
    webhook_keep_days: int = Field(
        30, ge=2,
        description="Days that processed webhook events and guest-check answers are kept for people "
        "to read; older ones are deleted. Failed events and dead letters are kept until dealt with. "
        "At least 2: the channel retries a delivery for up to 24 hours, and a kept event is what "
        "makes a late repeat a duplicate.",
    )
    history_keep_days: int = Field(
        90, ge=1,
        description="Days the history of nights (what was pushed to each night, from which PMS facts, "
        "why) is kept for `roomsync history` and the console; older entries are deleted.",
    )
    channel_booking_agency_id: int | None = Field(
        None, description="PMS booking agency of the rental channel, set on the reservations it creates."
    )
    payout_payment_method_id: int = Field(
        1, ge=1, description="PMS payment method of the payments recorded for channel payouts."
    )
    admin_token: SecretStr | None = Field(
        None, description="Bearer token of the admin API; unset turns the admin API off (never shown)."
    )

    # --- the daemon (roomsync serve) ------------------------------------------------------------
    serve_host: str = Field(
        "127.0.0.1", description="Address `roomsync serve` listens on (webhooks, /admin, /metrics, /healthz)."
    )
    serve_port: int = Field(8080, ge=1, le=65535, description="Port `roomsync serve` listens on.")
    admin_url: str | None = Field(
        None,
        description="URL of a running daemon for `roomsync status` and `roomsync resync`; unset: the "
        "daemon's lock file in data_dir says where a local daemon listens.",
    )
    time_scale: float = Field(
        1.0, gt=0, le=1,
        description="Multiplies every wait of the daemon's schedule (polls, price checks, reconciliation, "
        "re-push, webhook debounce, jitter) and the availability view's max age; 1 in production, "
        "tests compress a day into minutes.",
    )
    schedule_jitter_seconds: float = Field(
        20.0, ge=0,
        description="Random delay of up to this many seconds before each job's first run and after a "
        "quota reset, so that the daemons of many properties do not poll at the same second.",
    )
    poll_min_seconds: float = Field(
        60.0, gt=0, description="Shortest availability polling interval, however much budget is left."
    )
    poll_max_seconds: float = Field(
        21_600.0, gt=0, description="Longest availability polling interval while any budget is left."
    )
    poll_budget_share: float | None = Field(
        None, gt=0, le=1,
        description="Most of a day's quota that polling (availability, and closure and price "
        "detection) plans for a whole day, spent by the learned week's share of the day left; unset, "
        "what spend_share leaves after a day of full syncs, reconciliation and re-push.",
    )
    spend_share: float = Field(
        0.6, gt=0, le=1,
        description="Most of a day's quota roomsync plans to spend in all on a paid licence (polls, "
        "detections, pushes, full syncs, reconciliation): polling gets what the rest leaves of it, so "
        "a day of many pushes polls less instead of spending past it.",
    )
    free_licence_spend_share: float = Field(
        1.0, gt=0, le=1,
        description="The same on a free licence (100 requests a day or fewer), where every request "
        "buys freshness: all of the quota but the guest reserve by default.",
    )
    availability_max_gap_seconds: float = Field(
        900.0, gt=0,
        description="Longest wait between two availability polls while the day's plan can afford it "
        "(the budget wins when it cannot; status shows the staleness).",
    )
    detect_min_seconds: float = Field(
        120.0, gt=0,
        description="Shortest interval between two closure and price detections, however much "
        "budget is left.",
    )
    detect_max_gap_seconds: float = Field(
        1800.0, gt=0,
        description="Longest wait between two closure and price detections while the day's plan can "
        "afford it.",
    )
    burst_poll_gap_seconds: float = Field(
        90.0, gt=0,
        description="Longest wait between two availability polls while the front desk's changes come "
        "in a burst (seen by 3 or more runs in the last half hour, faster than the learned week "
        "expects), where the day's plan affords it: a busy hour's bookings show within two minutes.",
    )
    burst_detect_gap_seconds: float = Field(
        600.0, gt=0,
        description="The same for closure and price detections: a busy hour's closures and price "
        "edits show within about ten minutes.",
    )
    busy_hour_share: float = Field(
        0.14, gt=0, le=1,
        description="Most of the day's quota that the polls and detections of a burst (above) may "
        "spend in an hour, the last half hour's runs counted: the property's other applications "
        "keep theirs in the front desk's busy hour. Aimed a little under 15 %, as a run's cost is "
        "known only once it ran.",
    )
    detect_nights: int = Field(
        90, ge=1, le=730,
        description="Nights from today that the frequent closure and price detection checks; the full "
        "sync (price_check_interval_seconds) checks the whole horizon.",
    )
    detect_budget_share: float = Field(
        0.45, gt=0, lt=1,
        description="Share of the polling budget (poll_budget_share) spent detecting closures and "
        "price changes for a front desk whose changes are half bookings, half closures and prices; "
        "the changes seen lately move it (docs/operations.md); the rest polls availability.",
    )
    activity_half_life_days: float = Field(
        14.0, gt=0,
        description="Days after which a change the schedule saw counts half in the learned shape of "
        "the week (when the front desk changes things, per kind).",
    )
    full_sync_budget_share: float = Field(
        0.1, gt=0, le=1,
        description="Most of a day's quota the daemon's full syncs may spend: on a small quota they "
        "run less often than price_check_interval_seconds, sized by what the last one cost.",
    )
    reconcile_budget_share: float = Field(
        0.05, gt=0, le=1,
        description="Most of a day's quota the reconciliations may spend: on a small quota they run less "
        "often than reconcile_interval_seconds, sized by what the last one cost.",
    )
    full_sync_retry_seconds: float = Field(
        300.0, gt=0,
        description="After a full sync that failed or stopped short, the next is tried this much "
        "later, doubled for each further failure, never later than its regular interval.",
    )
    price_check_interval_seconds: float = Field(
        21_600.0, gt=0,
        description="Seconds between full syncs: the whole horizon's closure check and price "
        "detection, every listing brought in step (the detection checks the next detect_nights "
        "nights more often).",
    )
    reconcile_interval_seconds: float = Field(
        86_400.0, gt=0,
        description="Seconds between reconciliations, which re-read every channel calendar to find "
        "changes made there by hand.",
    )
    repush_interval_seconds: float = Field(
        86_400.0, gt=0,
        description="Seconds between full re-pushes of every connected-channel price (ledger ignored).",
    )
    webhook_push_debounce_seconds: float = Field(
        2.0, ge=0,
        description="Webhook-driven occupancy changes arriving within this many seconds are pushed to "
        "the other listings together, in one targeted push per room type.",
    )
    run_heartbeat_seconds: float = Field(
        30.0, gt=0,
        description="How often a sync run in progress records that it is alive; the daemon closes "
        "as abandoned a run silent for three times this (its process was killed).",
    )
    shutdown_grace_seconds: float = Field(
        25.0, gt=0,
        description="On SIGTERM, longest wait for in-flight syncs and webhook events to finish and be "
        "recorded before they are cancelled (a second signal exits at once).",
    )

    # --- logging -------------------------------------------------------------------------------
    log_format: LogFormat = Field(LogFormat.TEXT, description="Log lines as text or json.")
    log_level: str = Field("INFO", pattern=r"^(DEBUG|INFO|WARNING|ERROR)$", description="Log level.")

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not an IANA time zone (e.g. UTC, Europe/Athens)") from None
        return value

    @field_validator("admin_url")
    @classmethod
    def _admin_http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/") if value is not None else None

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("sqlite://", "postgresql")):
            raise ValueError("must be a sqlite:/// or postgresql+psycopg:// URL")
        return value

    @model_validator(mode="after")
    def _reserves_ordered(self) -> Settings:
        if not self.reserve_availability <= self.reserve_prices <= self.reserve_reconcile:
            raise ValueError(
                "reserve_availability <= reserve_prices <= reserve_reconcile must hold "
                "(lower priorities keep more in reserve)"
            )
        if self.poll_min_seconds > self.poll_max_seconds:
            raise ValueError("poll_min_seconds must not be larger than poll_max_seconds")
        if self.detect_min_seconds > self.detect_max_gap_seconds:
            raise ValueError("detect_min_seconds must not be larger than detect_max_gap_seconds")
        return self

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'roomsync.db'}"

    @property
    def effective_property_id(self) -> str:
        return self.property_id or self.domain or "default"

    @property
    def uses_static_key(self) -> bool:
        return self.api_key is not None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        config_path = os.environ.get(CONFIG_ENV)
        if config_path:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=Path(config_path)))
        return tuple(sources)


def _describe(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    name = ".".join(str(p) for p in first["loc"]) or "settings"
    message = first["msg"].removeprefix("Value error, ")
    ctx = first.get("ctx") or {}
    if first["type"] == "extra_forbidden":
        return f"unknown setting {name!r} (see config/roomsync.toml for the settings that exist)"
    if first["type"] == "enum" and "expected" in ctx:
        return f"setting {name!r}: allowed values are {ctx['expected']}"
    hint = f"ROOMSYNC_{name.upper()}" if name != "settings" else "the settings"
    return f"setting {name!r} ({hint}): {message}"


def load_settings(**overrides: Any) -> Settings:
    """The settings, or a ``SettingsError`` naming the bad setting and what is allowed."""
    config_path = os.environ.get(CONFIG_ENV)
    if config_path:
        path = Path(config_path)
        if not path.is_file():
            raise SettingsError(f"{CONFIG_ENV}={config_path}: no such file")
        try:
            tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as error:
            raise SettingsError(f"{CONFIG_ENV}={config_path}: not valid TOML ({error})") from None
    try:
        return Settings(**overrides)
    except ValidationError as error:
        raise SettingsError(_describe(error)) from None
