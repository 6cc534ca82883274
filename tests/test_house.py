"""Rooms with one concept each (issue #28, docs/architecture.md): no function in the package
is over 80 lines (the house rule), ``errors.py`` holds exceptions only, and the
reproductions are part of the package rather than a second top-level one."""

from __future__ import annotations

import ast
import importlib
import pathlib
import tomllib

import pytest

ROOT = pathlib.Path(__file__).parents[1]
PACKAGE = ROOT / "kernelsdp"
MAX_FUNCTION_LINES = 80


def test_no_function_in_the_package_is_over_80_lines():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert long == []


def test_errors_holds_exceptions_only():
    """Every class of errors.py is an exception or a warning; besides them it has only its
    docstring, imports and the forwarding of the names that moved out (with a warning)."""
    import kernelsdp.errors as errors

    tree = ast.parse((PACKAGE / "errors.py").read_text(encoding="utf-8"))
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert classes and all(issubclass(getattr(errors, c), (Exception, Warning)) for c in classes)
    others = [
        n
        for n in tree.body
        if not isinstance(n, (ast.ClassDef, ast.Import, ast.ImportFrom))
        and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    ]
    assert [getattr(n, "name", None) or n.targets[0].id for n in others] == [
        "_MOVED",
        "__getattr__",
    ]
    for name, home in errors._MOVED.items():
        with pytest.warns(DeprecationWarning, match=f"kernelsdp.{home}.{name}"):
            assert getattr(errors, name) is getattr(
                importlib.import_module(f"kernelsdp.{home}"), name
            )


def test_the_reproductions_install_inside_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["kernelsdp*"]
    assert not (ROOT / "papers").exists()
    from kernelsdp.reproductions import PAPERS

    assert list(PAPERS) == ["simplenpkl", "flexible-npkl", "ncut-kernels", "spectral-metric", "tla"]
