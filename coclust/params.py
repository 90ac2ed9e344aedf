"""The parameter contract of the project's estimators, declared once, in the scikit-learn style.

An estimator takes its hyper-parameters as keyword-only ``__init__`` arguments, stores them as
given, and declares what each may hold in a class attribute ``_constraints``:
``{name: [constraint, ...]}``; a value is valid when one of its constraints accepts it.
:func:`check_params` validates an estimator at the start of ``fit`` and names the parameter,
what it must be and what it got.  :class:`Params` gives estimators that are not scikit-learn
``BaseEstimator`` subclasses (the recommender, whose prediction path must not import
scikit-learn) the same ``get_params`` / ``set_params`` / ``repr``, read from the signature.

This module imports numpy only: it is safe to import from code that must start fast.

>>> rule = Interval(int, 1, None)
>>> rule.accepts(3), rule.accepts(0), rule.accepts(True), str(rule)
(True, False, False, 'an integer >= 1')
>>> str(Interval(float, 0, 1, closed="right"))
'a number in (0, 1]'
>>> class Toy(Params):
...     _constraints = {"k": [Interval(int, 1, None)], "mode": [Options("a", "b")]}
...     def __init__(self, *, k=1, mode="a"):
...         self.k, self.mode = k, mode
>>> Toy(k=2)
Toy(k=2)
>>> check_params(Toy(mode="c"))
Traceback (most recent call last):
...
ValueError: Toy: mode must be one of 'a', 'b', got 'c'
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Iterable

import numpy as np

# Tolerance of every "at least a fraction d of n" comparison (count >= d * n - DENSITY_TOLERANCE):
# d * n is computed in floating point, and 0.8 * 5 must admit a count of 4.
DENSITY_TOLERANCE = 1e-9


class Constraint:
    """What a parameter may hold; ``str()`` says it in words."""

    def accepts(self, value) -> bool:  # pragma: no cover - interface
        raise NotImplementedError


class Interval(Constraint):
    """A number of ``kind`` (``int`` or ``float``; booleans never) between ``low`` and ``high``
    (``None``: unbounded); ``closed`` is ``"both"``, ``"left"``, ``"right"`` or ``"neither"``."""

    def __init__(self, kind: type, low=None, high=None, closed: str = "both"):
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        if not isinstance(value, numbers.Integral if self.kind is int else numbers.Real):
            return False
        if not np.isfinite(value):
            return False
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        if self.low is not None and (value < self.low or (value == self.low and not left)):
            return False
        return self.high is None or not (value > self.high or (value == self.high and not right))

    def __str__(self) -> str:
        what = "an integer" if self.kind is int else "a number"
        if self.low is not None and self.high is not None:
            lb = "[" if self.closed in ("both", "left") else "("
            rb = "]" if self.closed in ("both", "right") else ")"
            return f"{what} in {lb}{self.low:g}, {self.high:g}{rb}"
        if self.low is not None:
            return f"{what} {'>=' if self.closed in ('both', 'left') else '>'} {self.low:g}"
        if self.high is not None:
            return f"{what} {'<=' if self.closed in ('both', 'right') else '<'} {self.high:g}"
        return what


class Options(Constraint):
    """One of the given values."""

    def __init__(self, *values):
        self.values = values

    def accepts(self, value) -> bool:
        return any(value is v or (isinstance(value, type(v)) and value == v) for v in self.values)

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


class Instance(Constraint):
    """An instance of one of ``types`` (booleans only when ``bool`` is among them)."""

    def __init__(self, *types: type, description: str | None = None):
        self.types, self.description = types, description

    def accepts(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)) and bool not in self.types:
            return False
        if bool in self.types and isinstance(value, np.bool_):
            return True
        return isinstance(value, self.types)

    def __str__(self) -> str:
        return self.description or " or ".join(t.__name__ for t in self.types)


class Subset(Constraint):
    """A collection (not a string) of values among ``options``."""

    def __init__(self, options: Iterable):
        self.options = tuple(options)

    def accepts(self, value) -> bool:
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            return False
        return all(v in self.options for v in value)

    def __str__(self) -> str:
        return "groups among " + ", ".join(self.options)


BOOLEAN = Instance(bool, description="True or False")
NONE = Options(None)


def check_params(estimator, error: type[Exception] = ValueError) -> None:
    """Raise ``error`` naming the first parameter of ``estimator`` that no constraint accepts."""
    constraints = type(estimator)._constraints
    label = getattr(estimator, "_label", type(estimator).__name__)
    for name in param_names(type(estimator)):
        value = getattr(estimator, name)
        rules = constraints[name]
        if not any(rule.accepts(value) for rule in rules):
            expected = " or ".join("None" if rule is NONE else str(rule) for rule in rules)
            raise error(f"{label}: {name} must be {expected}, got {value!r}")


def param_names(cls) -> list[str]:
    """The hyper-parameters of ``cls``: its keyword-only ``__init__`` arguments, in order."""
    params = inspect.signature(cls.__init__).parameters.values()
    names = [p.name for p in params if p.name != "self"]
    positional = [p.name for p in params if p.name != "self" and p.kind is not p.KEYWORD_ONLY]
    if positional:
        raise TypeError(f"{cls.__name__} parameters must be keyword-only, got {positional}")
    return names


class Params:
    """``get_params`` / ``set_params`` / ``repr`` read from the keyword-only signature of
    ``__init__`` (scikit-learn's ``BaseEstimator`` behaviour, without importing it)."""

    _constraints: dict = {}

    def get_params(self, deep: bool = True) -> dict:
        return {name: getattr(self, name) for name in param_names(type(self))}

    def set_params(self, **params):
        valid = param_names(type(self))
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {', '.join(valid)}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if not _same(v, defaults.get(k))]
        return f"{type(self).__name__}({', '.join(changed)})"


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b
