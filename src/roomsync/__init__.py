"""roomsync: keeps a rental channel and a hotel's connected channels in step with its PMS."""

__version__ = "0.1.0"
