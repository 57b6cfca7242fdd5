"""The daemon (``roomsync serve``): one process running the budget-aware schedule, the webhook
receiver and worker, the admin API, ``/metrics``, ``/healthz`` and ``/readyz``. docs/operations.md
describes it for operators.

    replica = Replica(settings)               # roomsync.app.daemon.replica: one Daemon per property
    await replica.open()                      # startup checks, each property's parts
    app = create_daemon_app(replica)          # roomsync.app.daemon.app; its lifespan starts/stops it

The package's modules are imported one by one (the CLI's ``status`` needs the lock and the status
models, not the web framework).
"""
