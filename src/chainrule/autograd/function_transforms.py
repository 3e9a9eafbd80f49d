"""What ``torch.func`` transforms ask of a custom ``autograd.Function`` (PyTorch's
"Extending torch.func with autograd.Function"): under any transform (``grad``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``) its ``forward`` must be written
without ``ctx`` and come with a ``setup_context`` staticmethod; under ``vmap`` (and
``jacfwd``, which PyTorch computes with ``vmap``) it must also set
``generate_vmap_rule = True`` or override the ``vmap`` staticmethod, not both.

chainrule's ``vmap`` runs the function once per sample, so a Function's ``vmap``
staticmethod is accepted but not called: the per-sample results are what a correct
rule gives. chainrule's own Functions (its stand-ins for PyTorch's C++ operators, which
carry their own batching rules) are not checked."""

from __future__ import annotations

import sys
from typing import Any

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def check_transformable(cls: Any, setup: bool) -> None:
    """Raise PyTorch's RuntimeError if ``cls.apply`` runs under a ``torch.func``
    transform that the Function does not support."""
    func = sys.modules.get("chainrule.func")
    if func is None or not func._transforms_active():
        return
    from .._import_hook import is_chainrule_module

    if is_chainrule_module(cls.__module__):  # (under the hook its classes read torch.*)
        return
    if not setup:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. " + _DOCS
        )
    if not func._vmap_depth[0]:
        return
    from .function import Function

    overridden = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule and overridden:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True "
            "and an overridden vmap staticmethod. Please set generate_vmap_rule=False or "
            "delete the overridden vmap staticmethod to avoid ambiguity. " + _DOCS
        )
    if not (cls.generate_vmap_rule or overridden):
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. " + _DOCS
        )
