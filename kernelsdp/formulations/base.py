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

**Inputs.**  What a user gives is declared, once: the parameters are dataclass fields
made by :func:`~kernelsdp.declarations.parameter` (type, range or choices, unit, the key of
a problem file they override), and ``INPUTS`` lists the rest (:class:`~kernelsdp.
declarations.Input`): where the problem comes from — a ``--problem`` file, a bundled
``--dataset``, each a *source*, exactly one given — and what shapes it (a subsample, a
seed, the k of a graph).  :meth:`Formulation.check_inputs` validates a dict of them without
reading anything and :meth:`Formulation.from_inputs` builds the problem; the command
line's flags, a sweep's unit keys and the estimators' parameter checks are derived from the
same declaration, and nothing here parses an argument list.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..certificate import Certificate, conic_certificate, feasibility_only
from ..data.datasets import DATASETS
from ..declarations import File, Input, dataclass_inputs
from ..errors import InvalidDataError, InvalidParameterError

#: headings of the inputs in ``--help``
SOURCES = "problem input (exactly one)"
WITH_DATASET = "with --dataset"

#: the input every formulation can be read from: a ``.npz`` file under its ``NPZ_KEYS``
PROBLEM = Input(
    "problem",
    File,
    help="arrays under the keys listed below",
    metavar="FILE.npz",
    source="problem",
    group=SOURCES,
)
#: a bundled data set, and what shapes the problem built from it
DATASET = Input(
    "dataset",
    str,
    choices=DATASETS,
    metavar="NAME",
    source="dataset",
    group=SOURCES,
    help="a bundled data set (kernelsdp.data.DATASETS)",
)
N_POINTS = Input(
    "n_points",
    int,
    low=2,
    unit="points",
    only_with="dataset",
    group=WITH_DATASET,
    help="subsample the data set to this many points",
)
SEED = Input(
    "seed",
    int,
    default=0,
    low=0,
    only_with="dataset",
    group=WITH_DATASET,
    help="seed of the subsample and of anything drawn from the data set",
)
RATIO = Input(
    "ratio",
    float,
    default=0.7,
    low=0.0,
    high=1.0,
    open_low=True,
    only_with="dataset",
    group=WITH_DATASET,
    help="pairs are drawn until the must-link graph has ratio·n components (seed 000 §6.1)",
)


@functools.cache
def declared_inputs(cls) -> dict[str, Input]:
    """Every input of a formulation class, name → :class:`Input`: its ``INPUTS`` and then
    its declared parameters (dataclass fields made by ``parameter``)."""
    out = {i.name: i for i in cls.INPUTS}
    for i in dataclass_inputs(cls):
        if i.name in out:
            raise TypeError(f"{cls.__name__}: the input {i.name!r} is declared twice.")
        out[i.name] = i
    return out


@functools.cache
def parameter_names(cls) -> frozenset[str]:
    return frozenset(i.name for i in dataclass_inputs(cls))


@functools.cache
def dataset_size(name: str) -> int:
    """The number of points of a bundled data set (read once)."""
    from ..data import load

    return len(load(name)[1])


def dataset_points(values: dict):
    """(X, y) of ``values["dataset"]``, subsampled to ``n_points`` by ``seed`` (sorted rows)."""
    from ..data import load

    X, y = load(values["dataset"])
    n_points = values.get("n_points")
    if n_points and n_points < len(y):
        keep = np.sort(
            np.random.default_rng(values.get("seed", 0)).choice(len(y), n_points, replace=False)
        )
        X, y = X[keep], y[keep]
    return X, y


def _source_phrase(inputs: dict[str, Input], name: str) -> str:
    i = inputs[name]
    text = f"{i.flag} {i.metavar or i.name.upper()}"
    return text + "".join(
        f" with {inputs[n].flag} {inputs[n].metavar or n.upper()}" for n in i.needs
    )


def check_sources(inputs: dict[str, Input], values: dict) -> str | None:
    """The one source given (exactly one of the declared ones), its needs, and the inputs
    that apply to another source only; returns its name (None: the class declares none)."""
    sources = [i.name for i in inputs.values() if i.source == i.name]
    if not sources:
        return None
    given = [s for s in sources if values.get(s) is not None]
    if len(given) != 1:
        ways = [_source_phrase(inputs, s) for s in sources]
        listed = ways[0] if len(ways) == 1 else ", ".join(ways[:-1]) + ", or " + ways[-1]
        raise InvalidDataError(f"give exactly one problem input: {listed}.")
    src = given[0]
    for need in inputs[src].needs:
        if values.get(need) is None:
            raise InvalidDataError(
                f"{inputs[src].flag} needs {inputs[need].flag} "
                f"{inputs[need].metavar or need.upper()}."
            )
    stray = [
        i.flag
        for i in inputs.values()
        if i.only_with not in (None, src) and values.get(i.name) is not None
    ]
    if stray:
        others = sorted({inputs[n].only_with for n in inputs if inputs[n].flag in stray})
        raise InvalidDataError(
            ", ".join(stray)
            + (" applies" if len(stray) == 1 else " apply")
            + " to "
            + " or ".join(inputs[o].flag for o in others)
            + " only; the given problem input is used as it is."
        )
    return src


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
        return {
            "primal": {
                k: np.asarray(v.value) for k, v in model.variables.items() if v.value is not None
            }
        }

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
        return feasibility_only(
            tol,
            {},
            result.objective,
            f"{result.solver} returned no canonical point and "
            f"{self.name} declares no certificate of its own",
            maximize=self.maximize,
        )

    @classmethod
    def from_npz(cls, arrays: dict[str, np.ndarray], **params) -> Formulation:
        """Build from the arrays of a ``--problem`` file (keys in ``NPZ_KEYS``)."""
        raise InvalidDataError(f"{cls.name} cannot be read from a .npz file.")

    #: the inputs besides the declared parameters: where the problem comes from (each
    #: ``source``; exactly one is given) and what shapes it.  Default: a ``--problem`` file.
    INPUTS: ClassVar[tuple[Input, ...]] = (PROBLEM,)

    @classmethod
    def inputs(cls) -> dict[str, Input]:
        """Every input, name → :class:`Input`: ``INPUTS``, then the declared parameters.  The
        CLI's flags, a sweep's unit keys and their validation are derived from it."""
        return declared_inputs(cls)

    @classmethod
    def check_inputs(
        cls, given: dict[str, Any], fixed: dict[str, Any] | None = None, owner: str | None = None
    ) -> dict[str, Any]:
        """The given inputs checked — names, types, ranges, the one source, the values a
        registry name fixes — with the defaults of the chosen source's inputs filled in;
        nothing is read (a sweep checks its whole grid this way before the first solve)."""
        owner = owner or cls.name
        inputs = cls.inputs()
        values = {}
        for name, value in given.items():
            if name not in inputs:
                raise InvalidParameterError(
                    f"{owner} has no input {name!r}; its inputs are {', '.join(inputs)}."
                )
            if value is not None:
                values[name] = inputs[name].check(value, owner)
        for key, value in (fixed or {}).items():
            if values.get(key) not in (None, value):
                raise InvalidDataError(
                    f"{owner} fixes {key} = {value!r}; got {inputs[key].flag} {values[key]!r}."
                )
            values[key] = value
        src = check_sources(inputs, values)
        params = parameter_names(cls)
        for i in inputs.values():
            if (
                i.name not in values
                and i.default is not None
                and i.name not in params
                and i.source is None
                and i.only_with in (None, src)
            ):
                values[i.name] = i.default
        if src == "dataset" and values.get("n_points") is not None:
            size = dataset_size(values["dataset"])
            if values["n_points"] > size:
                raise InvalidParameterError(
                    f"the data set {values['dataset']} has {size} "
                    f"points; got --n-points {values['n_points']}."
                )
        return values

    @classmethod
    def from_inputs(cls, values: dict[str, Any]) -> Formulation:
        """The problem that checked inputs (:meth:`check_inputs`) describe: read from the
        ``--problem`` file (:meth:`from_npz`, with the other inputs as keywords) or built
        from a data set (:meth:`from_dataset`)."""
        inputs = cls.inputs()
        rest = {
            k: v
            for k, v in values.items()
            if inputs[k].source is None and inputs[k].only_with is None
        }
        if values.get("problem") is not None:
            from ..data.files import load_npz

            return cls.from_npz(load_npz(values["problem"]), **rest)
        if values.get("dataset") is not None:
            return cls.from_dataset(values)
        raise InvalidDataError(f"{cls.name}: no problem input was given.")

    @classmethod
    def from_dataset(cls, values: dict[str, Any]) -> Formulation:
        """Build from a bundled data set (``values``: the checked inputs); a family that
        declares :data:`DATASET` among its ``INPUTS`` defines it."""
        raise InvalidDataError(f"{cls.name} cannot be built from a data set.")

    @classmethod
    def given_parameters(cls, values: dict[str, Any]) -> dict[str, Any]:
        """The declared parameters among ``values`` (for the dataclass's constructor)."""
        names = parameter_names(cls)
        return {k: v for k, v in values.items() if k in names and v is not None}

    @classmethod
    def file_values(cls, arrays: dict[str, np.ndarray], given: dict[str, Any]) -> dict[str, Any]:
        """The inputs a problem file holds under their ``file_key``, overridden by the
        given ones (a flag takes precedence over the file)."""
        out = {
            i.name: scalar_key(arrays, i.file_key, cls.name, i.type)
            for i in cls.inputs().values()
            if i.file_key and i.file_key in arrays
        }
        return {**out, **{k: v for k, v in given.items() if v is not None}}


def psd_side(problem: cp.Problem) -> int:
    """Side of the largest PSD constraint or PSD-attributed variable of a problem (0 if none)."""
    sides = [
        int(c.args[0].shape[-1]) for c in problem.constraints if isinstance(c, cp.constraints.PSD)
    ]
    sides += [
        int(v.shape[-1])
        for v in problem.variables()
        if v.attributes.get("PSD") or v.attributes.get("NSD")
    ]
    return max(sides, default=0)


def require_keys(arrays: dict[str, np.ndarray], keys, owner: str) -> None:
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise InvalidDataError(
            f"the problem file for {owner} lacks the key(s) "
            f"{', '.join(missing)}; see 'kernelsdp solve {owner} --help'."
        )


def scalar_key(arrays, key: str, owner: str, kind: type = float):
    """The one number stored under ``key`` of a problem file (a 0-d or 1-element array)."""
    a = np.asarray(arrays[key])
    if a.size != 1 or a.dtype.kind not in "biuf":
        raise InvalidDataError(
            f"the problem file for {owner}: the key {key!r} must hold one "
            f"number; got an array of shape {a.shape} ({a.dtype})."
        )
    value = a.ravel()[0].item()
    if kind is int and float(value) != int(value):
        raise InvalidDataError(
            f"the problem file for {owner}: the key {key!r} must hold an integer; got {value!r}."
        )
    return kind(value)
