"""What ``roomsync serve`` checks before it starts, each failure one plain line.

1. settings: credentials present (``username``/``password``/``domain`` or ``api_key``), webhook
   authentication settings consistent;
2. the database: reachable and at the newest schema (pending migrations: refuse, naming
   ``roomsync db upgrade``, unless ``--migrate``);
3. the mapping: loaded (or ``mapping_file`` set, which is then loaded, checked against the
   service's room types, accounts, listings and currency with two requests);
4. the credentials: one token request with the configured password, even when a stored token is
   still valid (it would hide a password changed since), whose usage headers also tell the budget
   what the server has counted today; with a static key, one ``GET /v1/Usage``.
"""

from __future__ import annotations

import logging

from sqlalchemy.exc import OperationalError

from roomsync.adapters.client import (
    AuthError,
    QuotaExhausted,
    RetriableError,
    ServiceClient,
    ServiceError,
)
from roomsync.adapters.store import (
    SchemaNotCurrent,
    Store,
    StoreUrlError,
    current_revision,
    display_url,
    head_revision,
    missing_sqlite_file,
    open_store,
)
from roomsync.adapters.webhooks import WebhookAuth, WebhookAuthConfigError
from roomsync.app.sync.mapping_checks import check_against_service, read_service_facts
from roomsync.app.sync.mapping_io import parse_mapping_toml, read_mapping_text
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import MappingError
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

log = logging.getLogger("roomsync.daemon")


class StartupError(Exception):
    """Why the daemon cannot start, as one line for the operator (exit status 1)."""


class SettingsMistake(StartupError):
    """A setting is missing or wrong (credentials, webhook authentication, the database URL, the
    mapping file): exit status 2, as every settings mistake of every command (README "Settings")."""


def check_settings(settings: Settings) -> None:
    if settings.api_key is None:
        missing = [name for name in ("username", "password", "domain") if getattr(settings, name) is None]
        if missing:
            raise SettingsMistake(
                f"token authentication needs the setting(s) {', '.join(missing)} "
                f"(ROOMSYNC_{missing[0].upper()}), or set api_key for a static key"
            )
    try:
        WebhookAuth.from_settings(settings)
    except WebhookAuthConfigError as error:
        raise SettingsMistake(str(error)) from None


def open_checked_store(settings: Settings, *, migrate: bool) -> Store:
    url = settings.effective_database_url
    if settings.database_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    try:
        before = current_revision(url) if migrate and missing_sqlite_file(url) is None else None
        store = open_store(settings, upgrade=migrate)
    except SchemaNotCurrent as error:
        raise StartupError(f"{error} (or start with `roomsync serve --migrate`)") from None
    except StoreUrlError as error:
        raise SettingsMistake(str(error)) from None
    except OperationalError as error:
        reason = str(error.orig or error).strip().splitlines()[0]
        raise StartupError(f"cannot use the database {display_url(url)}: {reason}") from None
    if migrate and before != (reached := head_revision()):
        # alembic's own lines are silenced (app.logs): this one says what the migration did
        shown = before or "empty"
        log.info("migrated the database %s from %s to revision %s", display_url(url), shown, reached)
    return store


async def check_mapping(context: PropertyContext, store: Store, client: ServiceClient) -> None:
    settings = context.settings
    pid = context.property_id
    if settings.mapping_file is not None:
        source = str(settings.mapping_file)
        try:
            mapping = parse_mapping_toml(read_mapping_text(settings.mapping_file), source)
            facts = await read_service_facts(client, client.gate.today())
            check_against_service(mapping, facts, source)
        except MappingError as error:  # start-up errors are one line: the entries joined
            raise SettingsMistake(str(error).replace("\n  ", "; ")) from None
        except ServiceError as error:
            why = f"mapping_file {source}: cannot check it against the service: {error}"
            raise StartupError(why) from None
        store.mappings.replace_mapping(pid, mapping)
        log.info("loaded the mapping %s: %d listings", source, len(mapping.listings))
        return
    if store.mappings.load_mapping(pid) is None:
        raise StartupError(
            f"property {pid!r} has no mapping: load one with `roomsync mappings load --property {pid} FILE`"
            + (" or set mapping_file" if context.from_settings else "")
        )


async def check_credentials(settings: Settings, client: ServiceClient) -> None:
    """One request that proves the configured credentials: a token request with the password
    (a stored token that is still valid proves nothing about a password changed since; the new
    token replaces it), or with a static key, ``GET /v1/Usage``."""
    try:
        if settings.api_key is None:
            await client.request_token(priority=Priority.AVAILABILITY)
            snapshot = client.budget()
            log.info(
                "the service accepts the credentials; %d of %d requests used today",
                snapshot.used,
                snapshot.quota,
            )
            return
        usage = await client.refresh_usage(priority=Priority.AVAILABILITY)
    except AuthError as error:
        raise StartupError(str(error)) from None
    except QuotaExhausted as error:
        log.warning("credentials not checked: %s", error)
        return
    except RetriableError as error:
        raise StartupError(f"cannot reach the service at {settings.base_url}: {error}") from None
    except ServiceError as error:
        raise StartupError(f"the service refused the credentials check: {error}") from None
    log.info(
        "the service accepts the credentials; %d of %d requests used today",
        usage.used_calls,
        usage.daily_quota,
    )
