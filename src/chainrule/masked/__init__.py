"""``chainrule.masked``: PyTorch's ``torch.masked``, reductions and normalizations that skip
the masked-out elements of their input (see ``_ops.py``), and the prototype ``MaskedTensor``
(``maskedtensor.py``, loaded on first use)."""

from __future__ import annotations

from ._ops import (
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logaddexp,
    logsumexp,
    mean,
    median,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)

__all__ = [
    "MaskedTensor",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "as_masked_tensor",
    "cumprod",
    "cumsum",
    "is_masked_tensor",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "masked_tensor",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]


_MASKED_TENSOR = ("MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor")


def __getattr__(name: str):
    # (loaded on first use: defining MaskedTensor turns on __torch_function__ dispatch)
    if name in _MASKED_TENSOR or name == "maskedtensor":
        import importlib

        module = importlib.import_module(f"{__name__}.maskedtensor")
        return module if name == "maskedtensor" else getattr(module, name)
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.masked", name)
