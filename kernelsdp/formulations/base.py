"""The contract of a formulation: validated problem data + one CVXPY model builder.

A formulation is declared once.  Generic solvers call :meth:`Formulation.build` and hand
the CVXPY problem to a conic solver; fast solvers read the same validated data; verify
evaluates the same objective.  ``NPZ_KEYS`` documents how the formulation is read from a
``--problem FILE.npz`` (the one way to feed any formulation from a script).

**Certificates.**  :meth:`Formulation.certificate` is what verify calls.  By default it is
the generic conic certificate of :mod:`kernelsdp.certificate`, computed from the canonical
point a generic solver kept, mapped to the formulation's objective by
:meth:`objective_map`: a new formulation is certified with no code of its own.  A family
that has a scalable certificate (NPKL's dual function on a kernel factor, a closed-form
dual bound) overrides it, and then certifies fast solvers' answers too.  An answer with
neither reads "feasibility only" and never passes.
"""

from __future__ import annotations

import dataclasses
import typing
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..certificate import Certificate, conic_certificate, feasibility_only
from ..declarations import strip_optional
from ..errors import InvalidDataError


def parameter_fields(cls) -> list[tuple[dataclasses.Field, Any]]:
    """(field, type) of the parameters a formulation class declares."""
    if not dataclasses.is_dataclass(cls):
        return []
    hints = typing.get_type_hints(cls)
    return [(f, hints.get(f.name)) for f in dataclasses.fields(cls) if "help" in f.metadata]


def add_parameter_flags(parser, cls, title: str = "parameters") -> None:
    """One flag per declared parameter (default None: the formulation's own default)."""
    g = parser.add_argument_group(title)
    for f, hint in parameter_fields(cls):
        core = strip_optional(hint)
        flag = "--" + f.name.replace("_", "-")
        default = f" (default {f.default})" if f.default is not None else ""
        if core is bool:
            g.add_argument(flag, dest=f.name, action="store_const", const=True, default=None,
                           help=f.metadata["help"])
        else:
            g.add_argument(flag, dest=f.name, type=core if core in (int, float, str) else str,
                           choices=f.metadata.get("choices"), default=None,
                           help=f.metadata["help"] + default)


def parameter_values(cls, args) -> dict[str, Any]:
    """The parameters given on the command line (the others keep their defaults)."""
    return {f.name: getattr(args, f.name) for f, _ in parameter_fields(cls)
            if getattr(args, f.name, None) is not None}


@dataclass
class CvxpyModel:
    """A built CVXPY problem with named handles to its variables and constraints."""

    problem: cp.Problem
    variables: dict[str, cp.Variable] = field(default_factory=dict)
    constraints: dict[str, cp.Constraint] = field(default_factory=dict)
    #: the lifted relaxation behind the model, when it is one (its ``invert`` maps back)
    relaxation: Any = None


class Formulation(ABC):
    """Base class: subclasses are dataclasses of validated data and parameters."""

    #: registry name of the formulation family
    name: ClassVar[str]
    #: key -> description of the arrays read from ``--problem FILE.npz``
    NPZ_KEYS: ClassVar[dict[str, str]] = {}
    #: the declared problem maximises its objective
    maximize: ClassVar[bool] = False
    #: the CVXPY model is a relaxation of the declared (nonconvex) problem: its optimum
    #: bounds the declared one, and the point read back from it is rounded
    relaxed_model: ClassVar[bool] = False
    #: a family's own bars, by solver kind: kind → (interval overlap, certificate); solvers
    #: of other kinds are held to their declared tolerances
    TOLERANCES: ClassVar[dict[str, tuple[float, float]]] = {}

    @abstractmethod
    def build(self) -> CvxpyModel:
        """The symbolic CVXPY model of the problem (the single declaration)."""

    def objective(self, point) -> float:
        """The objective of the declared problem at a point (a kernel factor, weights...);
        a family whose certificate or fast solvers need it overrides this."""
        raise NotImplementedError(f"{self.name} does not evaluate its objective at a point")

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        """Read a solved model: keys ``kernel``, ``primal``, ``duals``, ``info`` and, when
        the model is a relaxation, ``objective`` (the value of the point read back).
        Default: every named variable's value as a primal value."""
        return {"primal": {k: np.asarray(v.value) for k, v in model.variables.items()
                           if v.value is not None}}

    @property
    def n(self) -> int:
        """Number of points (size of the kernel); default: the side of the model's largest
        PSD block (a family with data overrides this without building the model)."""
        return psd_side(self.build().problem)

    @property
    def psd_dim(self) -> int:
        """Side of the largest PSD block of the CVXPY model (0 for a QP): what sizes the
        memory of an interior-point solve."""
        return self.n

    def describe(self) -> dict[str, Any]:
        """Parameters worth printing in a report."""
        return {"formulation": self.name, "n": self.n}

    def objective_map(self) -> tuple[float, float]:
        """(a, b) with objective = a·(value of the CVXPY model) + b: a model solved in
        rescaled units, or stated as the minimisation of −f, says so here."""
        return 1.0, 0.0

    def certificate(self, result, tol: float) -> Certificate:
        """The certificate of a result with a point (see the module docstring)."""
        if result.canonical is not None:
            return conic_certificate(result.canonical, tol).mapped(*self.objective_map())
        return feasibility_only(tol, {}, result.objective,
                                f"{result.solver} returned no canonical point and "
                                f"{self.name} declares no certificate of its own",
                                maximize=self.maximize)

    @classmethod
    def from_npz(cls, arrays: dict[str, np.ndarray], **params) -> "Formulation":
        """Build from the arrays of a ``--problem`` file (keys in ``NPZ_KEYS``)."""
        raise InvalidDataError(f"{cls.name} cannot be read from a .npz file.")

    #: extra command-line flags, name → type (bool: a switch), read by from_npz as params
    CLI_OPTIONS: ClassVar[dict[str, type]] = {}

    @classmethod
    def add_cli_arguments(cls, parser) -> None:
        """The problem-input flags of ``kernelsdp solve|verify NAME``: by default a required
        ``--problem FILE.npz`` (keys ``NPZ_KEYS``), one flag per declared ``parameter``
        and the flags of ``CLI_OPTIONS`` (inputs that are not fields, e.g. ``--ramps``)."""
        parser.add_argument("--problem", metavar="FILE.npz", required=True,
                            help="arrays under the keys listed below")
        add_parameter_flags(parser, cls)
        for name, typ in cls.CLI_OPTIONS.items():
            flag = "--" + name.replace("_", "-")
            if typ is bool:
                parser.add_argument(flag, dest=name, action="store_true", help=name)
            else:
                parser.add_argument(flag, dest=name, type=typ, default=None,
                                    help=f"{name} ({typ.__name__}; overrides the file)")

    @classmethod
    def from_cli(cls, args, fixed: dict) -> "Formulation":
        """The problem the parsed flags describe (``fixed``: parameters the registry name
        fixes)."""
        from ..data.files import load_npz
        extra = {k: getattr(args, k, None) for k in cls.CLI_OPTIONS}
        return cls.from_npz(load_npz(args.problem),
                            **{**extra, **parameter_values(cls, args), **fixed})


def psd_side(problem: cp.Problem) -> int:
    """Side of the largest PSD constraint or PSD-attributed variable of a problem (0 if none)."""
    sides = [int(c.args[0].shape[-1]) for c in problem.constraints
             if isinstance(c, cp.constraints.PSD)]
    sides += [int(v.shape[-1]) for v in problem.variables()
              if v.attributes.get("PSD") or v.attributes.get("NSD")]
    return max(sides, default=0)


def require_keys(arrays: dict[str, np.ndarray], keys, owner: str) -> None:
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise InvalidDataError(f"the problem file for {owner} lacks the key(s) {', '.join(missing)}; "
                               f"see 'kernelsdp solve {owner} --help'.")


def scalar_key(arrays, key: str, owner: str, kind: type = float):
    """The one number stored under ``key`` of a problem file (a 0-d or 1-element array)."""
    a = np.asarray(arrays[key])
    if a.size != 1 or a.dtype.kind not in "biuf":
        raise InvalidDataError(f"the problem file for {owner}: the key {key!r} must hold one "
                               f"number; got an array of shape {a.shape} ({a.dtype}).")
    value = a.ravel()[0].item()
    if kind is int and float(value) != int(value):
        raise InvalidDataError(f"the problem file for {owner}: the key {key!r} must hold an "
                               f"integer; got {value!r}.")
    return kind(value)
