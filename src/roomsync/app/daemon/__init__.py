"""The daemon (``roomsync serve``): one process running the budget-aware schedule, the webhook
receiver and worker, the admin API, ``/metrics``, ``/healthz`` and ``/readyz``. docs/operations.md
describes it for operators.

    daemon = Daemon(settings)
    await daemon.open()                       # startup checks, parts
    app = create_daemon_app(daemon)           # serve it (uvicorn); its lifespan starts/stops the daemon
"""

from roomsync.app.daemon.app import create_daemon_app
from roomsync.app.daemon.lock import DaemonAlreadyRunning, DaemonInfo, running_daemon
from roomsync.app.daemon.planning import PollPlan, plan_polling
from roomsync.app.daemon.runtime import Daemon, ShuttingDown
from roomsync.app.daemon.startup import StartupError
from roomsync.app.daemon.status import PropertyStatus, collect_status

__all__ = [
    "Daemon",
    "DaemonAlreadyRunning",
    "DaemonInfo",
    "PollPlan",
    "PropertyStatus",
    "ShuttingDown",
    "StartupError",
    "collect_status",
    "create_daemon_app",
    "plan_polling",
    "running_daemon",
]
