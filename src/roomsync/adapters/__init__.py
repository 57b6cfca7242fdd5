"""Adapters to the outside world: the service client, the store, the webhook receiver."""
