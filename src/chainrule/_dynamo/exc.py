"""``torch._dynamo.exc``: the exception types PyTorch's graph capture raises, which code
catches by name. chainrule captures no graphs; its control-flow operators
(chainrule/_higher_order_ops) raise these where PyTorch's tracing of their subgraphs
refuses a function (an input changed in place, an output that aliases an input, branches
that disagree)."""

from __future__ import annotations

from enum import Enum, auto

__all__ = [
    "CondOpArgsMismatchError",
    "InternalTorchDynamoError",
    "TorchDynamoException",
    "TorchRuntimeError",
    "UncapturedHigherOrderOpError",
    "Unsupported",
    "UserError",
    "UserErrorType",
]


class TorchDynamoException(RuntimeError):
    """The base of graph capture's errors."""


class InternalTorchDynamoError(TorchDynamoException):
    """A failure inside graph capture itself."""


class TorchRuntimeError(TorchDynamoException):
    """An operation failed while its outputs' metadata were worked out."""

    def __init__(self, msg: str, real_stack: object = None) -> None:
        super().__init__(msg)
        self.real_stack = real_stack


class Unsupported(TorchDynamoException):
    """Something graph capture cannot handle (a graph break)."""

    def __init__(
        self,
        msg: str,
        gb_type: str = "",
        skip_frame: bool = False,
        *,
        case_name: str | None = None,
        real_stack: object = None,
    ) -> None:
        super().__init__(msg)
        self.msg = msg
        self.gb_type = gb_type
        self.skip_frame = skip_frame
        self.case_name = case_name
        self.real_stack = real_stack


class UncapturedHigherOrderOpError(TorchDynamoException):
    """A higher-order operator (``torch.cond``, ``torch.while_loop`` ...) whose subgraph
    could not be captured whole."""

    def __init__(self, msg: str, real_stack: object = None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.real_stack = real_stack


class CondOpArgsMismatchError(TorchDynamoException):
    """The two branches of ``torch.cond`` return different numbers of outputs."""


class UserErrorType(Enum):
    """Why a :class:`UserError` was raised."""

    DYNAMIC_CONTROL_FLOW = auto()
    ANTI_PATTERN = auto()
    STANDARD_LIBRARY = auto()
    CONSTRAINT_VIOLATION = auto()
    DYNAMIC_DIM = auto()
    INVALID_INPUT = auto()
    INVALID_OUTPUT = auto()
    UNSUPPORTED_ALIASED_MUTATED_DYNAMIC_INPUTS = auto()


class UserError(TorchDynamoException):
    """Code valid eagerly that graph capture refuses, with what to do instead."""

    def __init__(self, error_type: UserErrorType, msg: str, case_name: str | None = None) -> None:
        super().__init__(msg)
        self.error_type = error_type
        self.message = msg
        self.case_name = case_name
