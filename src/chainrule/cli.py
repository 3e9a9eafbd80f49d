"""The ``chainrule`` command: ``chainrule demo`` and ``chainrule run SCRIPT.py``.

``chainrule demo`` runs the tutorial's non-scalar example and checks that
``x.grad == gradients * 2**(c+1)``. ``chainrule run script.py`` runs a script written
for PyTorch, unchanged, with ``import torch`` resolved to chainrule.
"""

from __future__ import annotations

import argparse
import builtins
import importlib.machinery
import os
import re
import sys
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any

from . import _import_hook

if TYPE_CHECKING:
    from ._tensor import Tensor

_PROG = "chainrule"


# ---------------------------------------------------------------- demo


@dataclass
class SeedRun:
    """What the seed program computed: kept whole so that reports (and, later,
    ``--explain``) can look at the graph as well as the numbers."""

    x: Tensor
    y: Tensor
    c: int
    gradients: Tensor

    @property
    def factor(self) -> int:
        """``y = x * 2**(c+1)``, so ``x.grad`` should be ``gradients * factor``."""
        return 2 ** (self.c + 1)

    def check(self) -> bool:
        """Whether ``x.grad == gradients * 2**(c+1)`` exactly, element by element."""
        grad = self.x.grad
        return grad is not None and bool((grad == self.gradients * self.factor).all())


# The tutorial's non-scalar example, with chainrule for torch. It runs as the user's own code
# (a file name outside the package, its lines in linecache), not as a function of this
# module: ``--explain`` then shows its lines and its variable names (x, y), as
# ``chainrule explain examples/seed.py`` does, instead of chainrule's frames.
SEED_FILE = "<chainrule demo: the tutorial's non-scalar example>"
SEED_PROGRAM = """\
import chainrule as torch
from chainrule.autograd import Variable

x = torch.randn(3)  # input is taken randomly
x = Variable(x, requires_grad=True)
y = x * 2
c = 0
while y.data.norm() < 1000:
    y = y * 2
    c += 1
gradients = torch.FloatTensor([0.1, 1.0, 0.0001])  # gradient because y is non-scalar
y.backward(gradients)
"""


def run_seed_program(seed: int | None = None) -> SeedRun:
    """The tutorial's non-scalar example (SEED_PROGRAM), run as a script would be."""
    import linecache

    import chainrule

    if seed is not None:
        chainrule.manual_seed(seed)
    # (mtime None: linecache.checkcache keeps lines that have no file)
    linecache.cache[SEED_FILE] = (len(SEED_PROGRAM), None, SEED_PROGRAM.splitlines(True), SEED_FILE)
    names: dict[str, Any] = {"__name__": "__main__", "__file__": SEED_FILE}
    exec(compile(SEED_PROGRAM, SEED_FILE, "exec"), names)  # noqa: S102 - our own program
    return SeedRun(x=names["x"], y=names["y"], c=names["c"], gradients=names["gradients"])


def _print_seed_run(result: SeedRun) -> None:
    k = result.c + 1
    print(f"c = {result.c}")
    print(f"x.grad = {result.x.grad}")
    print(f"x.grad == gradients * 2**{k} = gradients * {result.factor}: {result.check()}")


def _cmd_demo(args: argparse.Namespace) -> int:
    if args.explain:
        with explaining() as found:
            result = run_seed_program(args.seed)
        _print_seed_run(result)
        _report(found, None, None)
    else:
        result = run_seed_program(args.seed)
        _print_seed_run(result)
    return 0 if result.check() else 1


# ---------------------------------------------------------------- explain


class explaining:  # noqa: N801 - used as a context manager
    """Record source lines and explain every backward() and autograd.grad() call made inside."""

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit
        self.explanations: list = []
        self.calls = 0

    def __enter__(self) -> explaining:
        from . import autograd, explain

        self._record = explain.record()
        self._record.__enter__()
        self._saved = (autograd.backward, autograd.grad)
        real_backward, real_grad = self._saved

        def backward(tensors: Any, grad_tensors: Any = None, *args: Any, **kwargs: Any) -> None:
            self._explain(tensors, grad_tensors)
            return real_backward(tensors, grad_tensors, *args, **kwargs)

        def grad(
            outputs: Any, inputs: Any, grad_outputs: Any = None, *args: Any, **kwargs: Any
        ) -> tuple:
            self._explain(outputs, grad_outputs, inputs)
            return real_grad(outputs, inputs, grad_outputs, *args, **kwargs)

        autograd.backward, autograd.grad = backward, grad
        return self

    def _explain(self, outputs: Any, grads: Any, inputs: Any = None) -> None:

        if getattr(self, "_busy", False):  # explain's own backward passes are not the script's
            return
        self.calls += 1
        if self.limit and len(self.explanations) >= self.limit:
            return
        self._busy = True
        try:
            self._explain_now(outputs, grads, inputs)
        except Exception:  # the real call, which follows, reports the error as backward does
            self.calls -= 1
        finally:
            self._busy = False

    def _explain_now(self, outputs: Any, grads: Any, inputs: Any) -> None:
        from . import explain
        from ._tensor import Tensor

        outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
        gs = (
            [None] * len(outs)
            if grads is None
            else ([grads] if isinstance(grads, Tensor) else list(grads))
        )
        for out, g in zip(outs, gs):
            self.explanations.append(explain.explain(out, g, inputs))

    def __exit__(self, *exc: Any) -> None:
        from . import autograd

        autograd.backward, autograd.grad = self._saved
        self._record.__exit__(*exc)


def _report(found: explaining, html_path: str | None, dot_path: str | None) -> None:
    """Print each explanation after the script's output; write the pages asked for."""
    for i, e in enumerate(found.explanations, 1):
        print(f"\n=== chainrule explain: backward call {i} of {found.calls} ===")
        print(e)
        for path, render in ((html_path, e.to_html), (dot_path, e.to_dot)):
            if path:
                target = path if i == 1 else "{0}-{2}{1}".format(*os.path.splitext(path), i)
                with open(target, "w") as f:
                    f.write(render())
                print(f"(wrote {target})")
    if found.calls > len(found.explanations):
        print(
            f"\n({found.calls - len(found.explanations)} later backward calls not explained; "
            "use --max N to explain more, --max 0 for all)"
        )
    if not found.calls:
        print("\n(the script made no backward() or autograd.grad() call to explain)")


def _cmd_explain(args: argparse.Namespace) -> int:
    # `chainrule explain SCRIPT.py --html PAGE.html`: our options may follow the script;
    # anything after `--` (or not ours) goes to the script.
    rest, script_args = list(args.args), []
    while rest:
        item = rest.pop(0)
        if item == "--":
            script_args += rest
            break
        if item in ("--html", "--dot", "--max") and rest:
            value = rest.pop(0)
            setattr(args, item[2:], int(value) if item == "--max" else value)
        else:
            script_args.append(item)
    with explaining(args.max) as found:
        status = run_script(args.script, script_args)
    _report(found, args.html, args.dot)
    return status


# ---------------------------------------------------------------- run


def _missing_feature_message(exc: BaseException, script: str) -> str | None:
    """The message of the chainrule-missing feature behind ``exc``, if there is one.

    Follows the exception's ``__cause__``/``__context__`` chain, so a script that
    re-raises still gets the one-line explanation.
    """
    from ._missing import NotImplementedInChainrule

    seen: set[int] = set()
    err: BaseException | None = exc
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, (NotImplementedInChainrule, _import_hook.ModuleNotInChainrule)):
            return str(err)
        # ``from torch import fft`` in the script: Python turns the missing attribute
        # into "cannot import name 'fft' from 'chainrule'", raised in the script's frame.
        if (
            isinstance(err, ImportError)
            and (err.name or "").split(".")[0] == "chainrule"
            and _innermost_file(err) == script
        ):
            match = re.match(r"cannot import name '([^']+)'", str(err))
            if match:
                module = "torch" + err.name[len("chainrule") :]
                return _import_hook.missing_message(f"{module}.{match.group(1)}")
        err = err.__cause__ or err.__context__
    return None


def _script_traceback(exc: BaseException, script: str) -> TracebackType | None:
    """``exc``'s traceback as ``python script.py`` would show it: from the script's first
    frame on, without the import hook's frames (as Python hides its import machinery's)."""
    tb = exc.__traceback__
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename != script:
        start = start.tb_next
    if start is None:  # the script never ran: a SyntaxError, or a bug in this runner
        return None if isinstance(exc, SyntaxError) else tb
    hook = os.path.abspath(_import_hook.__file__)
    frames = [f for f in _walk(start) if f.tb_frame.f_code.co_filename != hook]
    for frame, following in zip(frames, [*frames[1:], None], strict=True):
        frame.tb_next = following
    return frames[0]


def _walk(tb: TracebackType | None) -> Iterator[TracebackType]:
    """The entries of a traceback, outermost first."""
    while tb is not None:
        yield tb
        tb = tb.tb_next


def _innermost_file(exc: BaseException) -> str | None:
    """The file of the frame that raised ``exc``."""
    frames = list(_walk(exc.__traceback__))
    return frames[-1].tb_frame.f_code.co_filename if frames else None


def _exit_code(exc: SystemExit) -> int:
    """The process exit status Python gives ``raise SystemExit(code)``."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _run_as_main(path: str) -> None:
    """Execute the file at ``path`` as the ``__main__`` module, as ``python path`` does."""
    with open(path, "rb") as f:
        source = f.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = ModuleType("__main__")
    module.__file__ = path
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    module.__builtins__ = builtins
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    try:
        exec(code, module.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _end_distributed_job(message: str, status: int) -> None:
    """A rank of an MPI job that fails ends the whole job, naming itself (the other ranks
    may be waiting for it in a collective)."""
    dist = sys.modules.get("chainrule.distributed")
    if dist is not None and dist.is_initialized():
        from .distributed._world import abort_job

        abort_job(message, status)


def run_script(script: str, args: Sequence[str] = ()) -> int:
    """Run ``script`` as ``__main__`` with ``import torch`` resolved to chainrule.

    Like ``python script args``: ``sys.argv`` is ``[script, *args]`` and ``sys.path[0]``
    is the script's folder (both restored afterwards). Returns the exit status.
    """
    path = os.path.abspath(script)
    if not os.path.isfile(path):
        print(f"{_PROG}: can't open file {script!r}: no such file", file=sys.stderr)
        return 2
    saved_argv, saved_path = sys.argv, sys.path[:]
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(path))
    try:
        with _import_hook.installed():
            _run_as_main(path)
    except SystemExit as exc:
        status = _exit_code(exc)
        if status:
            _end_distributed_job(f"exited with status {status}\n", status)
        return status
    except BaseException as exc:  # reported like the interpreter does
        tb = _script_traceback(exc, path)
        if sys.excepthook is not sys.__excepthook__:  # e.g. distributed's: name the rank, abort
            sys.excepthook(type(exc), exc, tb)
        traceback.print_exception(type(exc), exc, tb)
        message = _missing_feature_message(exc, path)
        if message is not None:
            print(f"{_PROG}: {message}", file=sys.stderr)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        sys.stdout.flush()
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    return run_script(args.script, args.args)


def _cmd_launch(args: argparse.Namespace) -> int:
    from .distributed._launch import launch

    return launch(args.nproc, args.script, args.args, args.hostfile)


# ---------------------------------------------------------------- main


def _parser() -> argparse.ArgumentParser:
    from . import _RELEASE as __version__

    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="PyTorch's autograd on NumPy: run the demo, or a PyTorch script.",
    )
    parser.add_argument("--version", action="version", version=f"{_PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser(
        "demo",
        help="run the tutorial's non-scalar backward example and check x.grad",
        description="Run the tutorial's non-scalar example and check that "
        "x.grad == gradients * 2**(c+1).",
    )
    demo.add_argument("--seed", type=int, default=None, help="call chainrule.manual_seed(N)")
    demo.add_argument("--explain", action="store_true", help="explain the backward call")
    demo.set_defaults(handler=_cmd_demo)

    explain = commands.add_parser(
        "explain",
        help="run a PyTorch script as `run` does and explain each backward call",
        description="Run SCRIPT like `chainrule run`, with source recording on, and explain "
        "every backward() and autograd.grad() call after the script's own output.",
    )
    explain.add_argument("--html", metavar="PAGE.html", help="also write each as a web page")
    explain.add_argument("--dot", metavar="FILE.dot", help="also write each as Graphviz DOT")
    explain.add_argument("--max", type=int, default=3, help="explain at most N calls (3; 0: all)")
    explain.add_argument("script", metavar="SCRIPT.py", help="the script to run")
    explain.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    explain.set_defaults(handler=_cmd_explain)

    run = commands.add_parser(
        "run",
        help="run a script written for PyTorch, with `import torch` giving chainrule",
        description="Run SCRIPT as __main__ (like `python SCRIPT ARGS`) with "
        "`import torch` resolved to chainrule.",
    )
    run.add_argument("script", metavar="SCRIPT.py", help="the script to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    run.set_defaults(handler=_cmd_run)

    launch = commands.add_parser(
        "launch",
        help="run a script on N processes with MPI (torch.distributed, DistributedDataParallel)",
        description="Run SCRIPT with `chainrule run` on N MPI processes: mpirun -n N "
        "[--hostfile FILE] python -m chainrule run SCRIPT ARGS (see docs/distributed.md).",
    )
    launch.add_argument("--nproc", "-n", type=int, default=1, help="number of processes (1)")
    launch.add_argument("--hostfile", metavar="FILE", help="MPI hostfile: the machines to use")
    launch.add_argument("script", metavar="SCRIPT.py", help="the script to run")
    launch.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    launch.set_defaults(handler=_cmd_launch)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``chainrule`` console script. Returns the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return _exit_code(exc)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
