"""Parameter checks with scikit-learn's message shape ("The 'C' parameter of NPKL must be a
float in the range (0, inf). Got -1 instead."), for values that are not declared inputs
(declared inputs check themselves: :class:`kernelsdp.declarations.Input`)."""

from __future__ import annotations

import numpy as np

from .errors import InvalidParameterError, UnknownNameError


def check_positive(value, name: str, owner: str) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise the standard error."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be a float in the range (0, inf). "
            f"Got {value!r} instead."
        ) from None
    if not (x > 0.0) or x == float("inf"):
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be a float in the range (0, inf). "
            f"Got {value!r} instead."
        )
    return x


def check_int(value, name: str, owner: str, low: int = 1) -> int:
    """Return ``value`` as an int if it is an integer (not a bool) >= ``low``, else raise the
    standard error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be an int >= {low}. Got {value!r} instead."
        )
    return int(value)


def check_choice(value, name: str, owner: str, choices) -> str:
    """Return ``value`` if it is one of ``choices``, else raise the standard error."""
    if value not in choices:
        raise UnknownNameError(
            f"The {name!r} parameter of {owner} must be one of "
            f"{', '.join(map(repr, choices))}. Got {value!r} instead."
        )
    return value
