"""Long runs that lose nothing: one results store for the whole project (reproductions,
sweeps, benchmarks) and one runner that skips finished units and saves each new one the
moment it completes."""

from .runner import RETRY, RunSummary, run_units
from .store import ResultsStore, default_store_path, unit_key

__all__ = ["RETRY", "ResultsStore", "RunSummary", "default_store_path", "run_units", "unit_key"]
