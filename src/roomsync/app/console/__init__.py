"""The admin console (``/console`` of ``roomsync serve``): see, explain and fix a calendar."""
