"""One bearer token per property (``TokenStore``)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import TOKEN
from roomsync.core.ports import StoredToken


class SqlTokenStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def load_token(self, property_id: str) -> StoredToken | None:
        with read_tx(self._engine) as conn:
            row = conn.execute(
                sa.select(TOKEN.c.access_token, TOKEN.c.expires_at).where(TOKEN.c.property_id == property_id)
            ).one_or_none()
        return None if row is None else StoredToken(access_token=row.access_token, expires_at=row.expires_at)

    def save_token(self, property_id: str, token: StoredToken) -> None:
        with write_tx(self._engine) as conn:
            stmt = insert_for(conn, TOKEN).values(
                property_id=property_id, access_token=token.access_token, expires_at=token.expires_at
            )
            conn.execute(
                stmt.on_conflict_do_update(
                    index_elements=[TOKEN.c.property_id],
                    set_={"access_token": stmt.excluded.access_token, "expires_at": stmt.excluded.expires_at},
                )
            )

    def clear_token(self, property_id: str) -> None:
        with write_tx(self._engine) as conn:
            conn.execute(sa.delete(TOKEN).where(TOKEN.c.property_id == property_id))
