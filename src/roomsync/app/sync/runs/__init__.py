"""The kinds of run of one property, one module each, every one a function over a
:class:`~roomsync.app.sync.runs.property_sync.PropertySync` (the property's context, store,
client, run recorder, clock and options):

================  =====================================================================================
module            its run
================  =====================================================================================
``full_sync``     :func:`sync_property`: every mapped listing and the connected channels' prices, from
                  one PMS read of the horizon (free rooms, closures, prices within the read allowance)
``plan``          :func:`plan`: a full sync or a resync as a dry run (reads are real, nothing written)
``resync``        :func:`resync`: the channel re-read (some listings, some dates), the whole difference
                  pushed, every connected price again when every listing is resynced
``reconcile``     :func:`reconcile`: every channel calendar re-read, closures located again, drift counted
``poll``          :func:`poll`: one free-room read, a push per listing whose calendar changed
``detect``        :func:`detect_changes`: the closure check's windows (they also settle prices), a poll
                  only when something changed
``push``          :func:`push_nights`: the overbooking guard's push of a few nights of one room type
``repush``        :func:`repush_connected_prices`: every connected-channel price again, from the cache
``estimates``     what a detection and a warm full sync cost, and whether every listing was synced
                  since an instant (no request)
================  =====================================================================================

``listing_pass`` is what the runs that write listings share (the listings' states and facts, the
digests, the pause of a listing whose room type is gone); ``property_sync`` the shared value and
the horizon, mapping and closure helpers. Every run is recorded by the
:class:`~roomsync.app.sync.recorder.RunRecorder` in ``store.sync_runs`` (a plan is not: it writes
nothing). The request count model is in docs/sync.md.
"""
