"""The steps of PyTorch's note "Extending PyTorch" on the ``__torch_function__`` protocol
(written for ``import torch``): a Tensor-like type that is not a Tensor (``ScalarTensor``,
a multiple of the identity matrix that keeps only its size and value) taking over the
torch functions it implements, and the error for the ones it does not; subclasses of
``torch.Tensor``, whose results stay of the subclass (``as_subclass``, operators,
functions, methods, ``nn.functional``), the order in which several subclasses are tried,
a subclass that logs every call, ``nn.Parameter``'s opting out; ``torch.overrides``'
helpers (``has_torch_function``, ``handle_torch_function``, ``resolve_name``,
``get_overridable_functions``) and a ``TorchFunctionMode`` that logs every call while it
is active. Runs unchanged with PyTorch and with ``chainrule run``."""

import functools

import torch
from torch.overrides import TorchFunctionMode, resolve_name

# ----- a Tensor-like type --------------------------------------------------------------------

HANDLED_FUNCTIONS = {}


class ScalarTensor:
    """A diagonal N x N matrix with one value on its diagonal."""

    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return f"ScalarTensor(N={self._N}, value={self._value})"

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor)) for t in types
        ):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(torch_function):
    """Register the function below as ScalarTensor's ``torch_function``."""

    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func

    return decorator


@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N


def ensure_tensor(data):
    if isinstance(data, ScalarTensor):
        return data.tensor()
    return torch.as_tensor(data)


@implements(torch.add)
def add(input, other):
    try:
        if input._N == other._N:
            return ScalarTensor(input._N, input._value + other._value)
        raise ValueError("Shape mismatch!")
    except AttributeError:
        return torch.add(ensure_tensor(input), ensure_tensor(other))


d = ScalarTensor(5, 2)
print(d)
print(d.tensor())
print(torch.mean(d))  # 2 / 5: ScalarTensor's mean, without making the matrix

s = ScalarTensor(2, 2)
print(torch.add(s, s))
t = torch.tensor([[1, 1], [1, 1]])
print(torch.add(s, t))

# A function ScalarTensor does not implement: every handler said NotImplemented.
for call in (lambda: torch.mul(s, 3), lambda: torch.nn.functional.relu(s), lambda: t + s):
    try:
        call()
    except TypeError as e:
        print("TypeError:", e)

print(torch.overrides.has_torch_function((s, t)), torch.overrides.has_torch_function((t,)))
print(torch.overrides.is_tensor_like(s), torch.overrides.is_tensor_like(t))


# A function of one's own can be overridable too, as PyTorch's Python functions are.
def scale(x, factor=2):
    if torch.overrides.has_torch_function_unary(x):
        return torch.overrides.handle_torch_function(scale, (x,), x, factor=factor)
    return x * factor


HANDLED_FUNCTIONS[scale] = lambda x, factor=2: ScalarTensor(x._N, x._value * factor)
print(scale(torch.ones(2)), scale(s, factor=3))

# ----- subclassing torch.Tensor ----------------------------------------------------------------


class SubTensor(torch.Tensor):
    pass


class SubTensor2(SubTensor):
    pass


class OtherSubTensor(torch.Tensor):
    pass


x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
sub = x.as_subclass(SubTensor)
print(type(sub).__name__, sub)
print(type(sub + 1).__name__, type(2 * sub).__name__, type(sub.exp()).__name__)
print(type(torch.nn.functional.relu(sub)).__name__, type(sub.max(0).values).__name__)
y = (sub * sub).sum()
print(y)
y.backward()
print(x.grad)

print(type(torch.add(SubTensor([0]), SubTensor([1]))).__name__)
print(type(torch.add(SubTensor([0]), torch.tensor([1]))).__name__)
print(type(torch.add(SubTensor2([0]), SubTensor([1]))).__name__)
print(type(torch.add(SubTensor2([0]), torch.tensor([1]))).__name__)
try:
    torch.add(SubTensor([0]), OtherSubTensor([1]))
except TypeError as e:
    print("TypeError:", e)

# nn.Parameter opts out: arithmetic on parameters gives plain tensors.
p = torch.nn.Parameter(torch.ones(2))
print(type(p * 2).__name__, type(p.detach()).__name__)


class LoggingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # (logging calls Tensor.__repr__, which is not logged: it would recurse)
        if func is not torch.Tensor.__repr__:
            print(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
        if kwargs is None:
            kwargs = {}
        return super().__torch_function__(func, types, args, kwargs)


logged = torch.tensor([1.0, 2.0]).as_subclass(LoggingTensor)
out = torch.exp(logged).sum()
print(type(out).__name__)

# ----- what is overridable --------------------------------------------------------------------

print(
    resolve_name(torch.add), resolve_name(torch.Tensor.add), resolve_name(torch.Tensor.grad.__get__)
)
print(resolve_name(torch.nn.functional.relu), resolve_name(torch.linalg.solve))
spaces = torch.overrides.get_overridable_functions()
print(torch.add in spaces[torch], torch.Tensor.exp in spaces[torch.Tensor])
print(torch.ones in torch.overrides.get_ignored_functions())

# ----- a mode sees every call ----------------------------------------------------------------


class FunctionLog(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        print(f"Function Log: {resolve_name(func)}, {len(args)} args, kwargs {kwargs}")
        return func(*args, **(kwargs or {}))


with FunctionLog():
    a = torch.ones(3, requires_grad=True)
    b = a * 2
    c = b.sum()
print(c)
