"""Type hints on the public API, and the ``py.typed`` marker that tells type checkers to read them.

Every function a user reaches (the names the name table builds: ``chainrule.*``, the Tensor
methods and operators, ``chainrule.linalg``, ``chainrule.special``,
``chainrule.nn.functional``; and the public functions and classes of the modules below)
annotates each parameter (but ``self``/``cls``, ``*args`` and ``**kwargs``) and its return.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import types
from pathlib import Path

import pytest

import chainrule
from chainrule import api
from chainrule.api import table

PACKAGE = Path(chainrule.__file__).parent

# the modules whose public functions and classes are API outside the name table (or that
# hold the functions the table names)
MODULES = (
    "chainrule",
    "chainrule._creation",
    "chainrule._random",
    "chainrule._dtypes",
    "chainrule._tensor",
    "chainrule._printing",
    "chainrule.utils.hooks",
    "chainrule.autograd",
    "chainrule.autograd.bfloat16",
    "chainrule.autograd.function",
    "chainrule.autograd.functional",
    "chainrule.autograd.forward_ad",
    "chainrule.autograd.grad_mode",
    "chainrule.autograd.gradcheck",
    "chainrule.autograd.anomaly_mode",
    "chainrule.autograd.graph",
    "chainrule.func",
    "chainrule.explain",
    "chainrule.cli",
    "chainrule.api",
    "chainrule.api.args",
    "chainrule.api.variants",
    "chainrule.api.parsers.activations",
    "chainrule.api.parsers.complex_numbers",
    "chainrule.api.parsers.spectral",
    "chainrule.fft",
    "chainrule.fx",
    "chainrule.fx.node",
    "chainrule.fx.graph",
    "chainrule.fx.proxy",
    "chainrule.fx._symbolic_trace",
    "chainrule.fx.graph_module",
    "chainrule.fx.interpreter",
    "chainrule.fx.passes.shape_prop",
    "chainrule.fx.subgraph_rewriter",
    "chainrule.masked",
    "chainrule.masked._ops",
    "chainrule.masked.maskedtensor",
    "chainrule.sparse",
    "chainrule.sparse._coo",
    "chainrule.sparse._tensor",
    "chainrule.nested",
    "chainrule.nested._tensor",
    "chainrule.nested._ops",
    "chainrule.optim._sparse",
    "chainrule.api.parsers.functional",
    "chainrule.api.parsers.indexing",
    "chainrule.api.parsers.linalg",
    "chainrule.api.parsers.pointwise",
    "chainrule.api.parsers.reductions",
    "chainrule.api.parsers.shapes",
    "chainrule.nn",
    "chainrule.nn.parameter",
    "chainrule.nn.init",
    "chainrule.nn.modules.module",
    "chainrule.nn.modules._hooks",
    "chainrule.nn.modules._state_dict",
    "chainrule.nn.modules.container",
    "chainrule.nn.modules.flatten",
    "chainrule.nn.modules.linear",
    "chainrule.nn.utils.clip_grad",
    "chainrule.nn.utils.convert_parameters",
    # --- optim (torch.optim) ---
    "chainrule.optim",
    "chainrule.optim.optimizer",
    "chainrule.optim.sgd",
    "chainrule.optim.adam",
    "chainrule.optim.adamax",
    "chainrule.optim.nadam",
    "chainrule.optim.radam",
    "chainrule.optim.rmsprop",
    "chainrule.optim.adagrad",
    "chainrule.optim.adadelta",
    "chainrule.optim.asgd",
    "chainrule.optim.rprop",
    "chainrule.optim.lbfgs",
    "chainrule.optim.sparse_adam",
    "chainrule.optim.lr_scheduler",
    "chainrule.optim._plateau_cyclic",
    "chainrule.optim.swa_utils",
    # --- end optim ---
    "chainrule.utils._pytree",
    "chainrule.utils.flop_counter",
    "chainrule.utils.flop_counter._formulas",
    "chainrule.utils.flop_counter._aten",
    "chainrule.utils.flop_counter._tracker",
    "chainrule.futures",
    "chainrule.jit._future",
    "chainrule.hub",
    "chainrule.utils.dlpack",
    "chainrule._determinism",
    "chainrule.__config__",
    "chainrule.utils.model_zoo",
    "chainrule.library",
    "chainrule.library._ops",
    "chainrule.library._schema",
    "chainrule.quasirandom",
    "chainrule.monitor",
)


def _public_modules(package: str, private: bool = False) -> tuple[str, ...]:
    """``package`` and its modules but the private ones (``_name``; with ``private``, those
    too: torchaudio's public names are defined in private modules and re-exported):
    torchvision's, torchaudio's and torch.onnx's API is whole packages."""
    import pkgutil

    root = importlib.import_module(package)
    names = [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
    return (
        package,
        *(n for n in names if private or not any(p.startswith("_") for p in n.split("."))),
    )


MODULES += (
    _public_modules("chainrule.vision")
    + _public_modules("chainrule.onnx")
    + _public_modules("chainrule.audio", private=True)
    + _public_modules("chainrule.export")
    + _public_modules("chainrule.ao")  # (quantization: tests/ao)
    + ("chainrule._quantized", "chainrule._fake_quantize")
)

# Functions the name table names directly that are defined in ops/, not in api/: their hints
# belong with the ops (src/chainrule/ops/ is outside this change; annotate them there and
# remove them from this list, which the test checks is not stale).
EXEMPT = {
    "chainrule.ops.activations.softsign",
    "chainrule.ops.activations.tanhshrink",
    "chainrule.ops.linalg.products.einsum",
    "chainrule.ops.linalg.products.inner",
    "chainrule.ops.linalg.products.tensordot",
    "chainrule.ops.linalg.products.vecdot",
    "chainrule.ops.normalizations.normalize",
    "chainrule.ops.special.ndtr",
}


def _functions(value: object) -> list[types.FunctionType]:
    """The Python functions behind a namespace entry or class attribute."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [
            f for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType)
        ]
    if isinstance(value, types.FunctionType):
        return [value]
    return []


def _ours(f: types.FunctionType) -> bool:
    """Written in chainrule's source (not made by dataclasses or NamedTuple)."""
    return Path(f.__code__.co_filename).resolve().is_relative_to(PACKAGE.resolve())


def _public_functions() -> list[tuple[str, types.FunctionType]]:
    """(qualified name, function) for every function to check, each function once (the
    builders' functions share names: unary(op) names its function after the op)."""
    found: dict[int, tuple[str, types.FunctionType]] = {}

    def add(f: types.FunctionType) -> None:
        if _ours(f):
            found.setdefault(id(f), (f"{f.__module__}.{f.__qualname__}", f))

    for names in api.build().values():
        for value in names.values():
            for f in _functions(value):
                add(f)
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.startswith("_"):
                continue
            if isinstance(value, type) and value.__module__ == name:
                for member, v in vars(value).items():
                    if member.startswith("_") and not member.startswith("__"):
                        continue  # private methods
                    for f in _functions(v):
                        add(f)
            elif isinstance(value, types.FunctionType) and value.__module__ == name:
                add(value)
    return sorted(found.values(), key=lambda item: item[0])


def missing_annotations(f: types.FunctionType) -> list[str]:
    """The parameters (and 'return') of ``f`` that have no annotation."""
    sig = inspect.signature(f)  # follows __wrapped__: with_out's wrappers show the function's
    missing = []
    for i, p in enumerate(sig.parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if i == 0 and p.name in ("self", "cls"):
            continue
        if p.annotation is p.empty:
            missing.append(p.name)
    if sig.return_annotation is sig.empty:
        missing.append("return")
    return missing


def test_public_functions_are_annotated():
    functions = _public_functions()
    assert len(functions) > 400  # the walk reaches the table's functions and the modules'
    lacking = [
        f"  {name}: {', '.join(missing)}"
        for name, f in functions
        if name not in EXEMPT and (missing := missing_annotations(f))
    ]
    assert lacking == [], "public functions without type hints:\n" + "\n".join(lacking)


def test_exemptions_are_not_stale():
    functions = _public_functions()
    unreached = sorted(EXEMPT - {name for name, _ in functions})
    assert unreached == [], f"EXEMPT names functions the walk no longer reaches: {unreached}"
    annotated = sorted(
        name for name, f in functions if name in EXEMPT and not missing_annotations(f)
    )
    assert annotated == [], f"these are annotated now: remove them from EXEMPT: {annotated}"


def test_builder_functions_are_annotated():
    """The functions the signature builders make (unary(op), tensors_only(op), with_out,
    inplace_method, the operators) carry hints too: spot-check a few by name."""
    for f in (
        chainrule.exp,
        chainrule.maximum,
        chainrule.eq,
        chainrule.isnan,
        chainrule.bitwise_and,
        chainrule.Tensor.add_,
        chainrule.Tensor.__add__,
        chainrule.Tensor.__lt__,
        chainrule.Tensor.__and__,
        chainrule.max,
        chainrule.var,
        chainrule.addmm,
    ):
        assert missing_annotations(f) == [], f.__qualname__
    assert inspect.signature(chainrule.exp).return_annotation == "Tensor"


def test_type_checkers_see_the_operators():
    """The operators the table attaches to Tensor at import are declared for type checkers
    in Tensor's ``if TYPE_CHECKING:`` block; the methods read as Any, by Tensor's own
    ``__getattr__`` (which raises chainrule's "not implemented" error for unknown names)."""
    tree = ast.parse((PACKAGE / "_tensor.py").read_text())
    (tensor,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    declared = {
        f.name
        for node in tensor.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for f in node.body
        if isinstance(f, ast.FunctionDef)
    }
    operators = {name for name, value in table.OPERATORS if callable(value)}
    assert declared == operators
    assert any(isinstance(f, ast.FunctionDef) and f.name == "__getattr__" for f in tensor.body)


def test_py_typed_ships():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "__init__.py").is_file()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
def test_py_typed_is_package_data():
    import tomllib

    pyproject = PACKAGE.parent.parent / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("chainrule is not run from its source tree")
    config = tomllib.loads(pyproject.read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["chainrule"]
