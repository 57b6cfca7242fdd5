# roomsync: multi-stage build; the runtime image holds only the installed package and its deps.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN python -m venv /opt/roomsync \
    && /opt/roomsync/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/roomsync/bin/pip install --no-cache-dir .

FROM python:3.11-slim AS runtime
# a numeric user (10001) so that the host and orchestrators can resolve it
RUN groupadd --system --gid 10001 roomsync \
    && useradd --system --uid 10001 --gid roomsync --home-dir /var/lib/roomsync roomsync \
    && mkdir -p /var/lib/roomsync && chown roomsync:roomsync /var/lib/roomsync && chmod 0700 /var/lib/roomsync
COPY --from=build /opt/roomsync /opt/roomsync
COPY config /etc/roomsync
# One data directory for every command: `serve`, `db upgrade` and the rest all use the SQLite file
# in the volume (mount it: docker run -v roomsync-data:/var/lib/roomsync ...); serve_port is the
# one setting the listener and the health check both read.
ENV PATH="/opt/roomsync/bin:$PATH" \
    ROOMSYNC_DATA_DIR=/var/lib/roomsync \
    ROOMSYNC_SERVE_HOST=0.0.0.0 \
    ROOMSYNC_SERVE_PORT=8080 \
    PYTHONUNBUFFERED=1
USER 10001
VOLUME ["/var/lib/roomsync"]
EXPOSE 8080
# `roomsync serve` stops gracefully on SIGTERM within shutdown_grace_seconds (25 s): run the container
# with `docker run --stop-timeout 40` (Docker's default, 10 s, would kill runs in flight). It migrates
# the database in the volume at start (--migrate), so no separate `db upgrade` container is needed.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["roomsync", "healthcheck"]
ENTRYPOINT ["roomsync"]
CMD ["serve", "--migrate"]
