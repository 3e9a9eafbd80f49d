"""``torch.sparse``: sparse COO tensors' functions (``mm``, ``addmm``, ``sum``, ``softmax``,
``log_softmax``) and ``check_sparse_tensor_invariants``.

The sparse tensors themselves (``torch.sparse_coo_tensor``, ``Tensor.to_sparse``) are in
``_tensor.py``, every op on them in ``_ops.py``, imported on first use (see its docstring for how
they work and where they differ from PyTorch's)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "addmm",
    "check_sparse_tensor_invariants",
    "log_softmax",
    "mm",
    "sampled_addmm",
    "softmax",
    "sum",
]


def _impl() -> Any:
    from . import _ops

    return _ops


def _run(name: str, function: Any, *args: Any, **kwargs: Any) -> Any:
    """``function``, or the compressed layouts' form of it (_compressed.py) when given one."""
    from . import _tensor

    return _tensor._gated(name, function)(*args, **kwargs)


def _checks() -> list:
    from . import _tensor

    return _tensor.CHECK_INVARIANTS


def mm(mat1: Any, mat2: Any, reduce: str = "sum") -> Any:
    """Sparse @ dense (dense result) or sparse @ sparse (sparse result); both
    differentiable: d/dmat2 = mat1^T g, d/dmat1 = (g mat2^T) at mat1's indices."""
    if reduce != "sum":
        raise _impl().not_on_sparse(f"_sparse_mm_reduce_impl ({reduce})")
    return _run("mm", _impl().mm, mat1, mat2)


def addmm(mat: Any, mat1: Any, mat2: Any, *, beta: float = 1.0, alpha: float = 1.0) -> Any:
    """beta * mat + alpha * (mat1 @ mat2), mat1 sparse."""
    return _run("addmm", _impl().addmm, mat, mat1, mat2, beta=beta, alpha=alpha)


def sampled_addmm(
    input: Any, mat1: Any, mat2: Any, *, beta: float = 1.0, alpha: float = 1.0, out: Any = None
) -> Any:
    """beta * input + alpha * (mat1 @ mat2) at the elements of ``input`` (CSR) only."""
    from . import _compressed

    return _compressed.sampled_addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def sum(input: Any, dim: Any = None, dtype: Any = None) -> Any:  # noqa: A001 - PyTorch's name
    """The sum over ``dim`` (all: a dense scalar); a sparse tensor while sparse dims remain."""
    return _run("sparse_sum", _impl().sparse_sum, input, dim, dtype)


def softmax(input: Any, dim: int, *, dtype: Any = None) -> Any:
    """Softmax over the specified elements along ``dim``: the unspecified ones are -inf."""
    return _run("softmax", _impl().softmax, input, dim, dtype)


def log_softmax(input: Any, dim: int, *, dtype: Any = None) -> Any:
    return _run("log_softmax", _impl().log_softmax, input, dim, dtype)


class check_sparse_tensor_invariants:  # noqa: N801 - PyTorch's spelling
    """Whether sparse tensors' indices are checked when made (a context manager and a
    decorator, with ``enable``, ``disable`` and ``is_enabled`` as PyTorch's)."""

    @staticmethod
    def is_enabled() -> bool:
        return _checks()[0]

    @staticmethod
    def enable() -> None:
        _checks()[0] = True

    @staticmethod
    def disable() -> None:
        _checks()[0] = False

    def __init__(self, enable: bool = True) -> None:
        self.state = enable
        self.saved = False

    def __enter__(self) -> None:
        self.saved = self.is_enabled()
        _checks()[0] = self.state

    def __exit__(self, *exc: Any) -> None:
        _checks()[0] = self.saved

    def __call__(self, func: Any) -> Any:
        import functools

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return run
