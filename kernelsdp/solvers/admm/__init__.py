"""Low-rank NPKL by ADMM (seed 001, Hu & Kwok): one solver in its own folder.

- :mod:`.solver`: the registered solver, its options and its memory formula (the method,
  its corrections to the seed and its measurements are in that module's docstring);
- :mod:`.run`: one run as a state object whose methods are the steps of Algorithm 1;
- :mod:`.pattern`: the sparse matrix W of the X/Y steps on supp(L) ∪ Ω ∪ Ωᵀ;
- :mod:`.factor_steps`: the warm start, the X/Y step inside the trace ball, the widening;
- :mod:`.certificate_spacing`: when the next duality-gap certificate is taken.
"""

from .solver import ADMM, ADMMOptions, iteration_memory_bytes

__all__ = ["ADMM", "ADMMOptions", "iteration_memory_bytes"]
