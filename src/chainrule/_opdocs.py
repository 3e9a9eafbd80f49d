"""docs/ops.md, generated from the op definitions themselves (``make docs``).

Where a rule states its formula, the convention every VJP and JVP follows:

- A rule written as a ``lambda`` states it in the trailing ``# ...`` comment on its line::

      vjp=lambda g, x: g * cos(x),  # d/dx sin x = cos x

  When the formatter spreads a lambda over several lines, the comments on those lines are
  read together (the trailing one usually sits after the closing bracket). Rules of two
  inputs never share a line; a VJP and the JVP of the same input may, with one comment.
- A rule written as a ``def`` (at module level or made by a factory) states it in the first
  line of its docstring (the first paragraph, when it wraps)::

      def _atan2_a(g, a, b):
          \"\"\"d/da atan2(a, b) = b / (a² + b²)\"\"\"

- A JVP that is its VJP's rule with the tangent ``t`` for the gradient ``g`` (elementwise
  ops, linear ops that are their own transpose) may say just ``# as the VJP``
  (``SAME_AS_VJP``), and tests/test_opdocs.py checks the claim; a JVP that is the very
  function of its VJP says nothing more.
- A formula is plain math, as a calculus book writes it: ``d/dx tanh x = 1 - tanh² x``,
  ``[x > 0]`` for an indicator, ``d(AB)/dA: G Bᵀ`` for a matrix rule (G the output
  gradient, dA a tangent), ``Jᵀg`` and ``J t`` for a linear op's transpose and itself.
  Where a rule is no simple formula (a scatter back, a reshape, PyTorch's error), the
  comment or docstring says in words what it computes.

An op's description is its ``doc=`` (``defop``), else its forward's docstring: the first
paragraph. A forward that is NumPy's (a ufunc such as ``xp.exp``) comes with a ``doc=``
written in the math (``"e^x"``); NumPy's own docstrings are never shown.

docs/ops.md has one section per op family (a module of ``chainrule.ops``, in ``FAMILIES``'
reading order), opening with the first paragraph of the module's docstring, then each op in
the order it is defined: its description, node name(s), inputs, the formula of each input's
VJP and JVP, and its conventions. Ops that only serve other ops (``HELPERS``, and names
starting with ``_``) close their family's section, under "Helper ops".
"""

from __future__ import annotations

import ast
import functools
import inspect
import io
import re
import sys
import tokenize
from pathlib import Path

from .autograd.recording import Op
from .autograd.registry import REGISTRY

# The op families, in reading order: (module under chainrule, section title).
FAMILIES = (
    ("ops.arithmetic", "Arithmetic"),
    ("ops.unary", "Unary functions"),
    ("ops.complex_parts", "Complex numbers"),
    ("ops.special", "Special functions"),
    (
        "ops.zeta_gamma",
        "Special functions: zeta, incomplete gamma, multivariate log-gamma",
    ),  # conf2
    ("ops.bessel", "Special functions: Bessel and Airy (no derivative)"),  # conf2
    ("ops.polynomials", "Special functions: orthogonal polynomials (no derivative)"),  # conf2
    ("ops.binary", "Binary functions"),
    ("ops.logical", "Comparisons and logical ops"),
    ("ops.copies", "Copies and casts"),
    ("ops.activations", "Activations"),
    ("ops.normalizations", "Normalizations"),
    ("ops.reductions", "Reductions"),
    ("ops.scans", "Scans"),
    ("ops.sorting", "Sorting and selecting"),
    ("ops.shapes", "Shapes and views"),
    ("ops.joining", "Joining and tiling"),
    ("ops.indexing", "Indexing"),
    ("ops.gather_scatter", "Gather and scatter"),
    ("ops.linalg.products", "Linear algebra: products"),
    ("ops.linalg.matrices", "Linear algebra: matrices"),
    ("ops.linalg.inverses", "Linear algebra: inverses and solves"),
    ("ops.linalg.factorizations", "Linear algebra: factorizations"),
    ("ops.linalg.ldl", "Linear algebra: LDLᵀ (Bunch-Kaufman, no derivative)"),
    ("ops.convolution", "Convolution"),
    ("ops.pooling", "Pooling"),
    ("ops.padding", "Padding"),
    ("ops.resampling", "Resampling"),
    ("ops.spectral", "Fourier transforms and frames"),  # torch.fft, stft, istft
    ("ops.norm_layers", "Normalization layers"),
    ("ops.losses", "Losses"),
    ("ops.distances", "Distances"),
    ("ops.embedding", "Embeddings"),
    ("ops.sparse_products", "Sparse-dense products"),
    ("ops.attention", "Attention"),
    ("ops.recurrent", "Recurrent cells"),  # nn-rnn
    ("ops.random", "Random draws"),  # conf-names
    ("ops.aten_forms", "ATen forms: view copies, native dropout, segment_reduce"),
    ("autograd.inplace", "In-place writes through views"),
)

# Ops that exist only to serve other ops (inside their derivatives, or the engine's own
# mechanics): listed last in their family, under "Helper ops".
HELPERS = frozenset(
    {
        "sum_to",  # undoes broadcasting for the engine (graph.py)
        "split_piece",  # re-derives a piece of split after an in-place write
        "shift_along",  # inside prod's and cumprod's derivatives
        "unshift_along",
        "index_into_zeros",  # the VJP of reading at a key
        "diagonal_backward",  # the VJP of diagonal
        # the transposes inside the VJPs of convolution, pooling, padding and resampling
        "convolution_weight",
        "max_pool_backward",
        "adaptive_max_pool_backward",
        "max_unpool_backward",
        "max_unpool_backward_backward",
        "avg_pool_backward",
        "adaptive_avg_pool_backward",
        "reflection_pad_backward",
        "replication_pad_backward",
        "circular_pad_backward",
        "upsample_nearest_backward",
        "upsample_nearest_exact_backward",
        "upsample_linear_backward",
        "upsample_bicubic_backward",
        "affine_grid_generator_backward",
        "ctc_loss_backward",  # the VJP of ctc_loss, recorded under create_graph
    }
)

# Comments that are tools' pragmas, not formulas.
_PRAGMAS = ("noqa", "type:", "fmt:", "pragma")

# What a JVP's comment says when it is its VJP's rule with t for g.
SAME_AS_VJP = "as the VJP"

_INTRO = """\
# Ops

Generated by `make docs` from the op definitions in `src/chainrule/ops/`: do not
edit by hand. Each op: what it computes, the node PyTorch names it by, its inputs, and
for each input the formula its VJP and its JVP state (a VJP maps the output gradient `g`
to the input's gradient, a JVP the input's tangent `t` to the output's tangent; `ans` is
the op's output, `[...]` is 1 where the condition holds and 0 elsewhere, `G` and `dA` are
a matrix gradient and tangent, `Jᵀg` and `J t` a linear op's transpose and itself).
Conventions at points where a function is not differentiable are stated with the op.
Where each formula lives in the code: `src/chainrule/_opdocs.py`.
"""


# ----- reading the source -------------------------------------------------------------------


@functools.cache
def _parsed(filename: str) -> tuple[ast.Module, dict[int, list[str]]]:
    """A source file's syntax tree, and its comments by line."""
    source = Path(filename).read_text()
    comments: dict[int, list[str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments.setdefault(tok.start[0], []).append(tok.string.lstrip("#").strip())
    return ast.parse(source), comments


def _lambda_node(fn) -> ast.Lambda | None:
    """The syntax node of a lambda function, told apart from others on its line by where
    its instructions come from (``co_positions``)."""
    code = fn.__code__
    try:
        tree, _ = _parsed(code.co_filename)
    except (OSError, SyntaxError):
        return None
    spots = [(line, col) for line, _, col, _ in code.co_positions() if line and col]
    candidates = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno
    ]

    def inside(node) -> int:
        body = node.body
        start, end = (body.lineno, body.col_offset), (body.end_lineno, body.end_col_offset)
        return sum(start <= spot <= end for spot in spots)

    return max(candidates, key=inside, default=None)


def _paragraph(text: str) -> str:
    """The first paragraph of a docstring, on one line."""
    lines = []
    for line in inspect.cleandoc(text).splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)


def rule_site(fn) -> tuple[str, range] | None:
    """The lines a lambda rule spans (file, line range); None for a def."""
    if fn is None or getattr(fn, "__name__", None) != "<lambda>":
        return None
    node = _lambda_node(fn)
    first = fn.__code__.co_firstlineno
    return (
        fn.__code__.co_filename,
        range(node.lineno, node.end_lineno + 1) if node else range(first, first + 1),
    )


def formula(fn) -> str:
    """The formula a rule states by the convention (module docstring); "" when none."""
    if fn is None:
        return ""
    if getattr(fn, "__name__", None) == "<lambda>":
        filename, lines = rule_site(fn)
        try:
            _, comments = _parsed(filename)
        except (OSError, SyntaxError):  # no source to read (a lambda made by exec)
            return ""
        found = [c for line in lines for c in comments.get(line, [])]
        return " ".join(c for c in found if c and not c.startswith(_PRAGMAS))
    doc = inspect.getdoc(fn)
    return _paragraph(doc) if doc else ""


def _markdown(text: str) -> str:
    """Docstring markup as Markdown: ``x`` becomes `x`, and a ``<`` that would open an HTML
    tag (``<name>``) is escaped."""
    return re.sub(r"<(?=/?[A-Za-z][\w-]*(\s|/?>))", "&lt;", text.replace("``", "`"))


# ----- what an op is ----------------------------------------------------------------------


def is_ours(fn) -> bool:
    """Whether a function is chainrule's own (NumPy's ufuncs and functions are not)."""
    return (getattr(fn, "__module__", None) or "").startswith("chainrule")


def description(op) -> str:
    """An op's own description: its ``doc=`` or its forward's docstring, never NumPy's."""
    doc = op.doc or ""
    if not is_ours(op.forward) and doc == (getattr(op.forward, "__doc__", None) or ""):
        return ""  # NumPy's docstring, not a description of ours
    return _paragraph(doc) if doc.strip() else ""


def family(op) -> str:
    """The module (under chainrule) an op is defined in: where its lambda rules are written,
    else where its def rules or its forward are, else the family module that names it."""
    rules = [f for f in (*op.raw_vjps, *op.raw_jvps) if f is not None]
    lambdas = [f for f in rules if f.__name__ == "<lambda>"]
    families = {m for m, _ in FAMILIES}
    for fn in (*lambdas, *rules, op.forward):
        module = (getattr(fn, "__module__", None) or "").removeprefix("chainrule.")
        # (rules written by a shared factory, ops.windows', belong where the op is named)
        if is_ours(fn) and module != "autograd.recording" and module in families:
            return module
    for module, _ in FAMILIES:  # no function of ours: the family that names the op
        if any(value is op for value in vars(sys.modules[f"chainrule.{module}"]).values()):
            return module
    return "other"


def node_names(op) -> str:
    """The node name(s) an op records: its ``node=``, or the names its node function returns."""
    name = op._node_name
    if isinstance(name, str):
        return f"`{name}`"
    found: list[str] = []
    try:
        code = inspect.getsource(name) if name.__name__ != "<lambda>" else None
    except (OSError, TypeError):
        code = None
    tree = ast.parse(code.strip()) if code else _lambda_node(name)
    # a factory's variables (``_reduction_node("Sum")``: base = "Sum") fill in f-strings
    closure = dict(
        zip(name.__code__.co_freevars, (c.cell_contents for c in name.__closure__ or ()))
    )
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if re.fullmatch(r"\w+Backward\d+", node.value):
                found.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                elif isinstance(v.value, ast.Name) and isinstance(closure.get(v.value.id), str):
                    parts.append(closure[v.value.id])
                else:
                    parts.append("{" + ast.unparse(v.value) + "}")
            found.append("".join(parts))
    names = sorted(set(found))
    return " or ".join(f"`{n}`" for n in names) + " (by the call)" if names else "by the call"


def same_rule(vjp, jvp) -> bool:
    """Whether a JVP is its VJP's rule with the tangent for the gradient: the same function,
    or two lambdas that differ only in the name of their first parameter."""
    if jvp is vjp:
        return True
    nodes = [_lambda_node(f) if rule_site(f) else None for f in (vjp, jvp)]
    if None in nodes:
        return False
    v, j = nodes
    if [a.arg for a in v.args.args[1:]] != [a.arg for a in j.args.args[1:]]:
        return False
    g, t = v.args.args[0].arg, j.args.args[0].arg

    def named(node, old, new):
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id == old:
                n.id = new
        return ast.dump(node)

    return named(ast.parse(ast.unparse(v.body)), g, "_") == named(
        ast.parse(ast.unparse(j.body)), t, "_"
    )


def shared_lines() -> list[str]:
    """Every op whose lambda rules of two different inputs share a line (so one comment
    would state both), as "op: x and y" (empty when none do)."""
    shared = []
    for name, op in REGISTRY.items():
        spans = [
            (arg, rule_site(fn))
            for arg, vjp, jvp in zip(op.args, op.raw_vjps, op.raw_jvps)
            for fn in (vjp, jvp)
            if rule_site(fn)
        ]
        for i, (arg, (file, lines)) in enumerate(spans):
            for other, (file2, lines2) in spans[i + 1 :]:
                if other != arg and file == file2 and set(lines) & set(lines2):
                    shared.append(f"{name}: {arg} and {other}")
    return sorted(set(shared))


def missing_formulas() -> list[str]:
    """Every rule that states no formula, as "op: VJP for x" (empty when all do)."""
    missing = []
    for name, op in REGISTRY.items():
        for arg, vjp, jvp in zip(op.args, op.raw_vjps, op.raw_jvps):
            if vjp is None:
                continue
            for kind, fn in (("VJP", vjp), ("JVP", jvp)):
                if fn is None or not formula(fn):
                    missing.append(f"{name}: {kind} for {arg}")
    return missing


# ----- the page -------------------------------------------------------------------------------


def _module_summary(module: str) -> str:
    doc = sys.modules[f"chainrule.{module}"].__doc__ or ""
    return _paragraph(doc)


def _entry(op, level: str) -> list[str]:
    about = description(op)
    out = [f"{level} `{op.name}`" + (f": {_markdown(about)}" if about else ""), ""]
    out.append(f"- node: {node_names(op)}; inputs: {', '.join(f'`{a}`' for a in op.args)}")
    for arg, vjp, jvp in zip(op.args, op.raw_vjps, op.raw_jvps):
        if vjp is None:
            out.append(f"- VJP for `{arg}`: none (no gradient)")
            continue
        out.append(f"- VJP for `{arg}`: {_markdown(formula(vjp))}")
        jvp_formula = SAME_AS_VJP if jvp is vjp else formula(jvp)
        if jvp_formula.startswith(SAME_AS_VJP):  # "as the VJP (...)": say what it means
            jvp_formula = "the VJP's rule, t for g" + jvp_formula[len(SAME_AS_VJP) :]
        out.append(f"- JVP for `{arg}`: {_markdown(jvp_formula)}")
    if op.conventions:
        out.append(f"- convention: {op.conventions}")
    out.append("")
    return out


def render() -> str:
    """The whole of docs/ops.md."""
    by_family: dict[str, list[Op]] = {}
    for op in REGISTRY.values():  # in the order they were defined
        by_family.setdefault(family(op), []).append(op)
    order = [m for m, _ in FAMILIES] + sorted(set(by_family) - {m for m, _ in FAMILIES})
    titles = dict(FAMILIES)
    out = [_INTRO]
    links = [f"[{titles.get(m, m)}](#{_anchor(titles.get(m, m))})" for m in order if m in by_family]
    out += ["Families: " + ", ".join(links) + ".", ""]
    for module in order:
        ops = by_family.get(module)
        if not ops:
            continue
        path = "src/chainrule/" + module.replace(".", "/") + ".py"
        out += [f"## {titles.get(module, module)}", "", f"`{path}`", ""]
        summary = _module_summary(module) if module in titles else ""
        if summary:
            out += [_markdown(summary), ""]
        main = [op for op in ops if not _is_helper(op)]
        helpers = [op for op in ops if _is_helper(op)]
        for op in main:
            out += _entry(op, "###")
        if helpers:
            out += [
                "### Helper ops",
                "",
                "Used inside other ops (their derivatives, the engine).",
                "",
            ]
            for op in helpers:
                out += _entry(op, "####")
    return "\n".join(out).rstrip("\n") + "\n"


def _anchor(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as -."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def _is_helper(op) -> bool:
    return op.name.startswith("_") or op.name in HELPERS


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0] if argv else "docs/ops.md")
    path.write_text(render())
    print(f"wrote {path} ({len(REGISTRY)} ops)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
