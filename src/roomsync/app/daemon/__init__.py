"""The daemon (``roomsync serve``): one process running the budget-aware schedule, the webhook
receiver and worker, the admin API, ``/metrics``, ``/healthz`` and ``/readyz``. docs/operations.md
describes it for operators.

    daemon = Daemon(settings)                 # roomsync.app.daemon.runtime
    await daemon.open()                       # startup checks, parts
    app = create_daemon_app(daemon)           # roomsync.app.daemon.app; its lifespan starts/stops it

The package's modules are imported one by one (the CLI's ``status`` needs the lock and the status
models, not the web framework).
"""
