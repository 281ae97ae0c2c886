"""Simulations on a Dask cluster: the same batches as on one machine, elsewhere.

Each batch is one task running :func:`py421.sim.simulate.play_batch`, so the
totals for a seed are the ones a local run gives. Dask is an optional extra:
``pip install '.[dask]'`` in the py421 folder; the workers need py421 installed too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import Message, Py421Error
from ..extras import install_command
from .fast import kernel as k

if TYPE_CHECKING:
    from .simulate import Progress, Simulation


def run_on_dask(
    sim: Simulation,
    address: str,
    progress: Progress | None = None,
    timeout: str = "20s",
    total: k.I64 | None = None,
) -> k.I64:
    """Play every batch on the Dask scheduler at ``address`` and add them up (to ``total``: stopped
    early, it holds the batches finished so far)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise Py421Error(Message("sim.no_dask", {"install": install_command("dask")})) from None
    from .simulate import play_batch

    total = np.zeros(k.C_SIZE, dtype=np.int64) if total is None else total
    try:
        client = Client(address, timeout=timeout)  # type: ignore[no-untyped-call]
    except (OSError, ValueError) as exc:
        raise Py421Error(
            Message(
                "sim.no_scheduler",
                {"address": repr(address), "reason": str(exc)},
            )
        ) from None
    with client:
        batches = list(sim.batches())
        futures = client.map(
            play_batch, [sim] * len(batches), [b for b, _ in batches], [g for _, g in batches], pure=False
        )
        sizes = {f.key: g for f, (_, g) in zip(futures, batches, strict=True)}
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            total += future.result()
            if progress:
                progress(sizes[future.key])
            future.release()
    return total
