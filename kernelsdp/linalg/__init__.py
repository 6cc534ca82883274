"""Linear algebra shared by formulations, solvers and certificates: extreme eigenvalues and
the positive part of sparse symmetric matrices."""
