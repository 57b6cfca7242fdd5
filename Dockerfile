# roomsync: multi-stage build; the runtime image holds only the installed package and its deps.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN python -m venv /opt/roomsync \
    && /opt/roomsync/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/roomsync/bin/pip install --no-cache-dir .

FROM python:3.11-slim AS runtime
RUN groupadd --system roomsync && useradd --system --gid roomsync --home-dir /var/lib/roomsync roomsync \
    && mkdir -p /var/lib/roomsync && chown roomsync:roomsync /var/lib/roomsync
COPY --from=build /opt/roomsync /opt/roomsync
COPY config /etc/roomsync
ENV PATH="/opt/roomsync/bin:$PATH" \
    ROOMSYNC_DATA_DIR=/var/lib/roomsync \
    PYTHONUNBUFFERED=1
USER roomsync
VOLUME ["/var/lib/roomsync"]
EXPOSE 8080
# `roomsync serve` stops gracefully on SIGTERM within shutdown_grace_seconds (25 s): run the container
# with `docker run --stop-timeout 40` (Docker's default, 10 s, would kill runs in flight). It refuses
# to start on a database with pending migrations: run `roomsync db upgrade` once first, or add --migrate.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status == 200 else 1)"
ENTRYPOINT ["roomsync"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
