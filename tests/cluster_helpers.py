"""What the cluster tests share: a local Dask cluster like `--cluster local:2`'s, and a ruleset whose games can
fail at run time (a division by zero on one of three choices), for the tests that error names travel right."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

RISKY = """game "Risky" { players 2..2 }
counter n 0..9
round {
  step s {
    choose x from [1, 2, 0] by first { n = 6 / x }
    end game
  }
}
score(p) = n
"""


@contextmanager
def two_worker_cluster() -> Iterator[Any]:
    """Two single-threaded worker processes under nannies (a killed one is restarted)."""
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as cluster:
        yield cluster
