"""The application: CLI, scheduler, daemon and admin API, wired from settings."""
