"""Where a sweep's units run: joblib's processes here, or a cluster through joblib's backend.

- ``None`` / ``loky``: local processes (``--jobs N``; 1 runs in this process);
- ``dask``: a Dask distributed scheduler (``distributed.Client(address)``); without an
  address, a local cluster is started for the run.  Start one on a cluster with
  ``dask scheduler`` on one node and ``dask worker tcp://HOST:8786`` on the others (each
  with kernelsdp installed), then ``kernelsdp sweep SPEC --backend dask --scheduler
  tcp://HOST:8786``;
- ``ray``: a Ray cluster (``ray start --head`` then ``ray start --address HOST:6379`` on
  the workers); ``--scheduler`` is the address given to ``ray.init`` (default: a local
  Ray started for the run).
"""

from __future__ import annotations

import contextlib

from joblib import parallel_config

from ..errors import InvalidDataError, InvalidParameterError

CONNECT_TIMEOUT_S = 20


@contextlib.contextmanager
def connect(backend: str | None, scheduler: str | None = None):
    """A context in which the units run on ``backend``; yields the backend name to give
    joblib's ``Parallel`` (None on a cluster: the context has set it)."""
    if backend in (None, "loky"):
        if scheduler:
            raise InvalidParameterError("--scheduler needs --backend dask or ray.")
        yield backend
    elif backend == "dask":
        try:
            from distributed import Client
        except ImportError:
            raise InvalidParameterError(
                "the dask backend needs dask distributed: pip install 'kernelsdp[cluster]'."
            ) from None
        try:
            client = (
                Client(scheduler, timeout=CONNECT_TIMEOUT_S)
                if scheduler
                else Client(processes=False)
            )
        except (OSError, TimeoutError) as exc:
            raise InvalidDataError(
                f"cannot reach the Dask scheduler at {scheduler}: {exc}"
            ) from None
        try:
            # the backend is set by joblib's context, not by name: Parallel(backend="dask")
            # fails in joblib 1.6 (Batch.__call__() got an unexpected keyword 'nesting_level')
            with parallel_config(backend="dask"):
                yield None
        finally:
            client.close()
    elif backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:
            raise InvalidParameterError("the ray backend needs Ray: pip install 'ray'.") from None
        register_ray()
        ray.init(address=scheduler, ignore_reinit_error=True)
        try:
            with parallel_config(backend="ray"):
                yield None
        finally:
            ray.shutdown()
    else:
        raise InvalidParameterError(
            f"The 'backend' parameter of the sweep must be one of "
            f"'loky', 'dask', 'ray'. Got {backend!r} instead."
        )
