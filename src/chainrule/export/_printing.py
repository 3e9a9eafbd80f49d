"""``str(ep)``: the graph as PyTorch prints an exported program (each value annotated
with its dtype and sizes, ``"f64[2, 8]"``), then the signature and range constraints.
Source-location comments are left out."""

from __future__ import annotations

import re
from typing import Any

from ..fx import Graph
from ._schema import SHORT_DTYPE


def expression(text: Any) -> str:
    """A serialized size (an int, or sympy's ``srepr`` text) as PyTorch prints it
    (``Symbol('s77', positive=True, integer=True)`` -> ``s77``)."""
    text = re.sub(r"Symbol\('(\w+)'[^)]*\)", r"\1", str(text))
    return re.sub(r"Integer\((-?\d+)\)", r"\1", text)


def annotation(meta: Any) -> str:
    """``"f64[2, 8]"`` for a value's dtype and sizes."""
    name = str(meta.dtype).rpartition(".")[2]
    sizes = ", ".join(expression(s) for s in meta.shape)
    return f'"{SHORT_DTYPE.get(name, name)}[{sizes}]"'


def readable(graph: Graph, code: str, name: str = "GraphModule", children: Any = ()) -> str:
    """The class text of ``print_readable`` with annotated values; ``children``: the
    ``(graph, code, name, children)`` of each subgraph, printed as a nested class."""
    metas = {n.name: n.meta.get("tensor_meta") for n in graph.nodes}
    syms = {n.name: n.meta["sym_expr"] for n in graph.nodes if "sym_expr" in n.meta}
    params = []
    for n in graph.nodes:
        if n.op == "placeholder":
            meta = metas.get(n.name)
            params.append(f"{n.target}: {annotation(meta)}" if meta is not None else n.target)
    lines = [
        f"class {name}(torch.nn.Module):",
        f"    def forward({', '.join(['self', *params])}):",
    ]
    for line in code.strip("\n").split("\n")[1:]:
        if not line.strip():
            continue
        m = re.match(r"^    (\w+) = (.*)$", line)
        if m is not None and metas.get(m.group(1)) is not None:
            line = f"    {m.group(1)}: {annotation(metas[m.group(1)])} = {m.group(2)}"
        elif m is not None and m.group(1) in syms:
            line = f'    {m.group(1)}: "Sym({expression(syms[m.group(1)])})" = {m.group(2)}'
        lines.append("    " + line)
    for child in children:
        lines.append("        ")
        lines += ["    " + line for line in readable(*child).rstrip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def tree(module: Any, name: str = "GraphModule") -> tuple:
    """``(graph, code, name, children)`` of an exported GraphModule and its subgraphs."""
    from ._higher_order import subgraphs

    children = [tree(getattr(module, attr), attr) for attr in subgraphs(module.graph)]
    # (made again from the graph: a program's code may predate its last graph pass, as
    # PyTorch's does where _unique2's getitems were merged)
    code = module.graph.python_code(root_module="self").src
    return module.graph, code, name, children


def program_text(graph_module: Any, signature: Any, range_constraints: dict) -> str:
    """PyTorch's ``str(ExportedProgram)`` layout."""
    module = readable(*tree(graph_module)).replace("\n", "\n    ")
    sig = str(signature).replace("\n", "\n    ")
    return (
        "ExportedProgram:\n"
        f"    {module}\n"
        f"Graph signature: {sig}\n"
        f"Range constraints: {range_constraints}\n"
    )
