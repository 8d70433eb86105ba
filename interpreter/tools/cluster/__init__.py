"""Simulation and fuzzing beyond one machine, on Dask's distributed scheduler (the optional ``liturgy[cluster]``).

``chunks`` (per-chunk aggregates merged in chunk order) and ``bundle`` (a ruleset and its card files as bytes,
compiled once per worker by fingerprint) need nothing beyond the engine; ``dask`` is imported only by ``runner``
and ``fuzzing`` when a run is actually sent to a cluster.  docs/cluster.md explains the whole path.
"""
