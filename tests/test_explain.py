"""chainrule.explain: the steps, numbers and pictures of a backward call.

Expected values come from the math (the seed program's factor 2^(c+1), the scalar
example's 4.5, derivatives of exp and sin) and from PyTorch (the small network's
gradients at every step). The page's behaviour in a real browser is tested in
test_explain_browser.py.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch

import chainrule as cr

ROOT = Path(__file__).resolve().parent.parent


def _seed_program(seed: int):
    cr.manual_seed(seed)
    with cr.explain.record():
        x = cr.randn(3, requires_grad=True)
        y = x * 2
        c = 0
        while y.data.norm() < 1000:
            y = y * 2
            c += 1
    return x, y, c, cr.FloatTensor([0.1, 1.0, 0.0001])


# ----- the seed program ----------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seed_program_explained(seed):
    x, y, c, v = _seed_program(seed)
    e = cr.explain(y, v)
    text = str(e)
    factor = 2 ** (c + 1)
    assert "vector-Jacobian product vᵀJ" in text
    assert "MulBackward0" in text and "AccumulateGrad" in text
    assert f"2^{c + 1} = {factor} * x" in text  # the folded factor, as a number
    assert f"dy/dx = {factor} * I (a diagonal Jacobian)" in text
    assert "`y = y * 2`" in text and "`y = x * 2`" in text  # the user's own lines
    assert "v = [0.1, 1., 1.0000e-04]" in text
    grad = (np.array([0.1, 1.0, 0.0001], dtype=np.float32) * factor).tolist()
    assert f"x.grad = v * {factor} = [{grad[0]:.4g}, {grad[1]:.0f}., {grad[2]:.4g}]" in text
    assert cr.equal(e.gradients[x], v * factor)
    assert cr.equal(e.jacobian(), cr.eye(3) * factor)
    assert "v @ J = " in text and "equals the gradient for x" in text
    assert x.grad is None  # explain accumulates nothing
    y.backward(v)  # and frees nothing
    assert cr.equal(x.grad, v * factor)


def test_seed_steps_as_data():
    x, y, c, v = _seed_program(0)
    e = cr.explain(y, v)
    assert [s.node for s in e.steps] == ["MulBackward0"] * (c + 1) + ["AccumulateGrad"]
    assert [s.factor for s in e.steps[:-1]] == [2.0] * (c + 1)
    assert [s.code for s in e.steps[:-1]] == ["y = y * 2"] * c + ["y = x * 2"]
    assert e.steps[0].source.startswith(__file__ + ":")
    g = v
    for s in e.steps[:-1]:  # each step doubles the gradient it is handed
        assert s.input_shapes == [(3,), None] and s.output_shape == (3,)
        assert s.local == "d(a*2)/da = 2"
        assert cr.equal(s.grad_in, g)
        g = g * 2
        assert cr.equal(s.grads_out[0], g)
    assert e.steps[-1].leaf is x and cr.equal(e.steps[-1].grad_in, g)


def test_recording_is_off_by_default_and_scoped():
    x = cr.ones(2, requires_grad=True)
    y = x * 3
    with cr.explain.record():
        z = y.exp()
    w = z.sum()
    steps = {s.node: s for s in cr.explain(w).steps}
    assert steps["SumBackward0"].source is None and steps["SumBackward0"].code is None
    assert steps["MulBackward0"].source is None
    assert steps["ExpBackward0"].code == "z = y.exp()"
    assert steps["ExpBackward0"].source.startswith(__file__ + ":")
    assert y.grad_fn._extra is None  # nothing recorded outside the block


# ----- the scalar example ------------------------------------------------------------------


def test_scalar_example_explained():
    x = cr.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    e = cr.explain(out)
    text = str(e)
    for name in ("MeanBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad"):
        assert name in text
    assert "d mean(z)/dz_i = 1/4" in text
    assert "d(y*y)/dy = 2y" in text
    assert "d(a*3)/da = 3" in text
    assert "d(a + c)/da = 1" in text
    assert "v = 1. (implicitly 1: the output is a scalar)" in text
    assert "(the sum of the gradients from its 2 uses)" in text  # y is used twice in y * y
    assert "x.grad would receive [4.5, 4.5, 4.5, 4.5]" in text  # 3 * 2 * (1 + 2) / 4
    # the chain rule along the one path: 1/4 * 3 * 2y * 1 with y = 3
    assert "0.25 (MeanBackward0" in text and "3 (MulBackward0" in text
    assert "6 (MulBackward0: d(y*y)/dy = 2y) × 1 (AddBackward0: d(a + c)/da = 1) = 4.5." in text
    assert [s.grad_in.tolist() for s in e.steps] == [
        1.0,
        [[0.25] * 2] * 2,
        [[0.75] * 2] * 2,
        [[4.5] * 2] * 2,  # 0.75 * y, twice
        [[4.5] * 2] * 2,
    ]
    out.backward()  # a later backward still works
    assert x.grad.tolist() == [[4.5, 4.5], [4.5, 4.5]]


# ----- a small network, checked step by step against PyTorch ------------------------------


def test_small_network_every_number_matches_pytorch():
    r = np.random.default_rng(3)
    arrays = {
        "x": r.standard_normal((4, 3)),
        "w1": r.standard_normal((3, 5)),
        "b1": r.standard_normal(5),  # broadcast over the batch
        "w2": r.standard_normal((5, 2)),
    }

    def net(lib, t):
        a = t["x"] @ t["w1"]
        pre = a + t["b1"]
        h = pre.relu()
        o = h @ t["w2"]
        return o.mean(), (o, h, pre, a)

    c = {k: cr.tensor(v, requires_grad=k != "x") for k, v in arrays.items()}
    p = {k: torch.tensor(v, requires_grad=k != "x") for k, v in arrays.items()}
    loss, _ = net(cr, c)
    p_loss, p_mid = net(torch, p)
    for t in p_mid:
        t.retain_grad()
    p_loss.backward()
    e = cr.explain(loss)
    names = [s.node for s in e.steps if s.node != "AccumulateGrad"]
    assert names == ["MeanBackward0", "MmBackward0", "ReluBackward0", "AddBackward0", "MmBackward0"]
    # what arrives at each node is the gradient of that node's output, as PyTorch has it
    p_o, p_h, p_pre, p_a = p_mid
    wanted = [p_o.grad, p_h.grad, p_pre.grad, p_a.grad]
    for s, want in zip([s for s in e.steps if s.node != "AccumulateGrad"][1:], wanted):
        np.testing.assert_allclose(s.grad_in.numpy(), want.numpy(), rtol=1e-12)
    for k in ("w1", "b1", "w2"):
        np.testing.assert_allclose(e.gradients[c[k]].numpy(), p[k].grad.numpy(), rtol=1e-12)
    add = next(s for s in e.steps if s.node == "AddBackward0")
    assert add.input_shapes == [(4, 5), (5,)]  # the bias gradient is summed over the batch
    np.testing.assert_allclose(add.grads_out[1].numpy(), p["b1"].grad.numpy(), rtol=1e-12)
    for s in e.steps:  # every outgoing gradient has the shape of its input
        for shape, g in zip(s.input_shapes, s.grads_out):
            if g is not None:
                assert tuple(g.shape) == tuple(shape)
    text = str(e)
    for k in ("w1", "b1", "w2"):  # named as the code names them
        assert f"c['{k}'].grad would receive" in text
    assert "d relu(x)/dx = 1 where x > 0, else 0" in text
    assert "Input 2 was broadcast from [5] to [4, 5], so its gradient is summed back to [5]" in text
    assert "d(A@B)/dA = G @ Bᵀ" in text and "d mean(z)/dz_i = 1/8" in text
    jac = e.jacobian()
    assert set(jac) == {c["w1"], c["b1"], c["w2"]}
    for k in ("w1", "b1", "w2"):
        np.testing.assert_allclose(jac[c[k]].numpy(), p[k].grad.numpy(), rtol=1e-12)
    assert text.count("equals the gradient for") == 3
    loss.backward()
    for k in ("w1", "b1", "w2"):
        np.testing.assert_allclose(c[k].grad.numpy(), p[k].grad.numpy(), rtol=1e-12)


def test_elementwise_chain_folds_into_a_diagonal_jacobian():
    a = cr.tensor([0.5, 1.0, 2.0], requires_grad=True)
    b = a.exp().sin()
    e = cr.explain(b, cr.tensor([1.0, 0.0, 2.0]))
    diag = np.cos(np.exp([0.5, 1.0, 2.0])) * np.exp([0.5, 1.0, 2.0])  # d sin(e^a)/da
    text = str(e)
    assert "Every step is elementwise, so the Jacobian is diagonal: db/da = diag([" in text
    shown = text.split("diag([")[1].split("])")[0]
    np.testing.assert_allclose([float(t) for t in shown.split(", ")], diag, rtol=1e-3)
    np.testing.assert_allclose(e.jacobian().numpy(), np.diag(diag), rtol=1e-6)
    np.testing.assert_allclose(e.gradients[a].numpy(), diag * [1.0, 0.0, 2.0], rtol=1e-6)


def test_inputs_and_retained_grads_are_left_alone():
    a = cr.tensor([0.5, 1.0], requires_grad=True)
    m = a * 3
    m.retain_grad()
    out = (m * m).sum()
    e = cr.explain(out, inputs=[m])
    assert list(e.gradients) == [m]
    assert e.gradients[m].tolist() == [3.0, 6.0]  # d sum(m^2)/dm = 2m
    assert m.grad is None and a.grad is None
    out.backward()
    assert m.grad.tolist() == [3.0, 6.0] and a.grad.tolist() == [9.0, 18.0]


class _Square(cr.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


@pytest.mark.parametrize(
    "make, node",
    [
        (lambda x: _Square.apply(x).sum(), "_SquareBackward"),
        (lambda x: x[1:].exp().sum(), "SliceBackward0"),
        (lambda x: cr.softmax(x, 0)[0], "SoftmaxBackward0"),
        (lambda x: cr.autograd.grad((x**3).sum(), x, create_graph=True)[0].sum(), "PowBackward0"),
        (lambda x: (x.double() * 2).sum(), "ToCopyBackward0"),
        (lambda x: sum(t.sum() * i for i, t in enumerate(x.split(1))), "SplitBackward0"),
        (lambda x: cr.where(x > 1, x, x * 2).sum(), "WhereBackward0"),
    ],
    ids=["custom-function", "slice", "softmax", "double-backward", "cast", "split", "where"],
)
def test_other_graphs_give_backwards_gradients(make, node):
    x = cr.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = make(x)
    e = cr.explain(out)
    assert node in [s.node for s in e.steps]
    (want,) = cr.autograd.grad(out, x)
    np.testing.assert_allclose(e.gradients[x].numpy(), want.numpy(), rtol=1e-12)
    assert "x.grad would receive" in str(e)
    assert e.to_html().count('class="node') == len(e.items)


def test_non_scalar_without_gradient_raises_like_backward():
    x = cr.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        cr.explain(x * 2)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        cr.explain(x * 2, cr.ones(2))


def test_jacobian_size_limit():
    x = cr.ones(2000, requires_grad=True)
    with pytest.raises(RuntimeError, match="never forms it"):
        cr.explain(x * 2, cr.ones(2000)).jacobian()


# ----- long graphs -----------------------------------------------------------------------


def test_long_chain_is_summarised():
    x = cr.ones(3, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    e = cr.explain(y.sum())
    text = str(e)
    assert len(e.steps) == 10_002 and len(text) < 20_000
    assert "MulBackward0 x 10000" in text
    assert f"scale the gradient by {1.0001**10_000:g}" in text
    page, dot, md = e.to_html(), e.to_dot(), e.to_markdown()
    assert max(len(page), len(dot), len(md)) < 60_000
    assert page.count('class="node') == 3  # sum, the folded run, the leaf


def test_long_graph_of_mixed_steps_stays_short():
    x = cr.ones(3, requires_grad=True)
    y = x
    for _ in range(5000):  # 10,000 nodes, alternating
        y = y * 1.0001 + 0.001
    e = cr.explain(y.sum())
    text = str(e)
    assert len(text) < 20_000
    assert "the pattern AddBackward0 -> MulBackward0 repeated 5000 times" in text


def test_long_graph_without_a_pattern_is_cut_in_the_middle():
    ops = np.random.default_rng(0).integers(0, 4, 2999)  # no repeating pattern to fold
    leaves = [cr.tensor([1.0 + i / 4000], requires_grad=True) for i in range(3000)]
    s = leaves[0]
    for op, leaf in zip(ops, leaves[1:]):
        if op == 0:
            s = s * leaf
        elif op == 1:
            s = s + leaf.sin()
        elif op == 2:
            s = s - leaf.exp()
        else:
            s = s / (leaf + 1)
    e = cr.explain(s.sum())
    text = str(e)
    assert len(text) < 20_000
    assert "are not shown here; they are all in explanation.steps" in text
    assert "more leaves (see explanation.gradients)" in text
    assert len(e.gradients) == 3000
    assert len(e.steps) == 1 + 2999 + int((ops != 0).sum()) + 3000
    assert e.to_html().count('class="node') <= 40


def test_many_leaves_fold_into_one_item():
    leaves = [cr.tensor(float(i), requires_grad=True) for i in range(10_000)]
    e = cr.explain(cr.stack(leaves).sum())
    text = str(e)
    assert len(text) < 20_000
    assert "AccumulateGrad x 10000, adding the incoming gradients into" in text
    assert "; ... (10000 gradients)" in text  # StackBackward0's outputs, shortened
    assert all(g.item() == 1.0 for g in e.gradients.values())


# ----- renderers ---------------------------------------------------------------------------


def test_dot_markdown_and_html():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    e = cr.explain((x * x).sum())
    dot = e.to_dot()
    assert dot.startswith("digraph backward {") and dot.endswith("}")
    assert 'i0 [label="SumBackward0' in dot and 'i1 [label="MulBackward0' in dot
    assert 'i0 -> i1 [label="[1., 1.]"];' in dot  # d sum/dz = 1
    assert 'i1 -> i2 [label="[1., 2.]"];' in dot  # x, along each of the two edges
    md = e.to_markdown()
    assert "| 1 | `SumBackward0` | `out = z.sum()` | d sum(z)/dz_i = 1 |" in md
    assert "| 3 | `AccumulateGrad` |" in md and "[2., 4.] (the sum of the gradients" in md
    page = e.to_html()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and 'id="steps"' in page
    assert "function show(" in page
    # self-contained: nothing to fetch (the browser test watches the requests too)
    for needle in ("src=", "href=", "@import", "url(http", "//cdn", "https:"):
        assert needle not in page
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_render_needs_graphviz_and_says_how_to_install(monkeypatch, tmp_path):
    e = cr.explain((cr.ones(2, requires_grad=True) * 2).sum())
    monkeypatch.setitem(sys.modules, "graphviz", None)  # the package is not installed
    monkeypatch.setattr("shutil.which", lambda name: None)  # nor is `dot`
    with pytest.raises(RuntimeError, match="apt-get install graphviz.*pip install graphviz"):
        e.render(str(tmp_path / "g"))


def test_render_uses_the_graphviz_package(monkeypatch, tmp_path):
    calls = []

    class Source:
        def __init__(self, text):
            calls.append(text)

        def render(self, path, format, cleanup):  # noqa: A002
            calls.append((path, format, cleanup))
            return f"{path}.{format}"

    fake = types.ModuleType("graphviz")
    fake.Source, fake.ExecutableNotFound = Source, RuntimeError
    monkeypatch.setitem(sys.modules, "graphviz", fake)
    e = cr.explain((cr.ones(2, requires_grad=True) * 2).sum())
    assert e.render(str(tmp_path / "g"), format="png") == str(tmp_path / "g") + ".png"
    assert calls == [e.to_dot(), (str(tmp_path / "g"), "png", True)]


def test_render_with_the_dot_program(monkeypatch, tmp_path):
    """With Graphviz's `dot` on the PATH an SVG is written; without it, the message."""
    import shutil

    monkeypatch.setitem(sys.modules, "graphviz", None)
    e = cr.explain((cr.ones(2, requires_grad=True) * 2).sum())
    if shutil.which("dot"):
        path = e.render(str(tmp_path / "g"))
        svg = Path(path).read_text()
        assert path.endswith(".svg") and "<svg" in svg and "MulBackward0" in svg
    else:
        with pytest.raises(RuntimeError, match="`dot` program, which was not found"):
            e.render(str(tmp_path / "g"))


# ----- the command line --------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "chainrule", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_explains_the_unedited_seed_script(tmp_path):
    page, dot = tmp_path / "seed.html", tmp_path / "seed.dot"
    proc = _cli(
        "explain", str(ROOT / "examples" / "seed.py"), "--html", str(page), "--dot", str(dot)
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    c = int(out.splitlines()[0])  # the script's own output comes first: c, then x.grad
    assert out.index("tensor(") < out.index("=== chainrule explain: backward call 1 of 1 ===")
    assert "`y = y * 2` (line 15" in out and "`y = x * 2` (line 12" in out
    assert f"dy/dx = {2 ** (c + 1)} * I" in out
    assert "x.grad would receive" in out
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert dot.read_text().startswith("digraph backward {")


def test_cli_explains_the_scalar_example_and_autograd_grad(tmp_path):
    proc = _cli("explain", str(ROOT / "examples" / "scalar.py"))
    assert proc.returncode == 0, proc.stderr
    assert "x.grad would receive [4.5, 4.5, 4.5, 4.5]" in proc.stdout
    assert "`out = z.mean()` (line 12)" in proc.stdout
    script = tmp_path / "grad.py"
    script.write_text(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = (x ** 3).sum()\n"
        "(g,) = torch.autograd.grad(y, x)\n"
        "print(g)\n"
    )
    proc = _cli("explain", str(script))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("tensor([ 3., 12.])")  # 3x^2
    assert "d(x^3)/dx = 3·x^2" in proc.stdout and "x.grad would receive [3., 12.]" in proc.stdout


def test_cli_limits_the_number_of_explained_calls():
    proc = _cli("explain", str(ROOT / "examples" / "tiny_net.py"), "--max", "1")
    assert proc.returncode == 0, proc.stderr
    assert "=== chainrule explain: backward call 1 of 301 ===" in proc.stdout
    assert (
        "(300 later backward calls not explained; use --max N to explain more, --max 0 for all)"
        in proc.stdout
    )
    for name in ("w1", "b1", "w2", "b2"):
        assert f"{name}.grad would receive" in proc.stdout


def test_demo_explain():
    proc = _cli("demo", "--explain", "--seed", "4")
    assert proc.returncode == 0, proc.stderr
    assert "Folded: every step only scales" in proc.stdout
    assert "x.grad == gradients * 2**" in proc.stdout
