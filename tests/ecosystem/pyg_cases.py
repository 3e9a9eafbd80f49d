"""The torch_geometric cases of test_torch_geometric.py, run once per side.

``python pyg_cases.py OUT oracle`` runs every case on the real PyTorch: it makes the
modules (seeded), saves their weights to ``OUT/pyg_weights.pt`` and writes the results
to ``OUT/pyg_oracle.npz``. ``chainrule run pyg_cases.py OUT chainrule`` loads those
weights into the same modules and writes ``OUT/pyg_chainrule.npz``. Inputs are made with
NumPy from seeds, so both sides see the same ones. A case that raises records its error
in ``OUT/pyg_<side>_errors.json`` instead of results.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from case_inputs import Weights
from case_runner import Cases

warnings.filterwarnings("ignore")

import torch_geometric.transforms as T  # noqa: E402
from torch_geometric import nn as gnn  # noqa: E402
from torch_geometric import utils as U  # noqa: E402
from torch_geometric.data import Batch, Data  # noqa: E402
from torch_geometric.loader import DataLoader  # noqa: E402

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/pyg_weights.pt", ORACLE)
CASES = Cases()
case, put, module = CASES.case, CASES.put, WEIGHTS.module


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def features(n: int, c: int, seed: int = 0) -> torch.Tensor:
    return torch.tensor(rng(seed).standard_normal((n, c)), dtype=torch.float32)


def random_edges(n: int, m: int, seed: int = 0) -> torch.Tensor:
    """``m`` random directed edges among ``n`` nodes, no self-loops."""
    g = rng(seed)
    src = g.integers(0, n, m)
    dst = (src + g.integers(1, n, m)) % n
    return torch.tensor(np.stack([src, dst]), dtype=torch.long)


def sbm(sizes: list[int], p_in: float, p_out: float, seed: int) -> torch.Tensor:
    """An undirected stochastic block model graph (both directions of every edge)."""
    g = rng(seed)
    block = np.repeat(np.arange(len(sizes)), sizes)
    n = len(block)
    prob = np.where(block[:, None] == block[None, :], p_in, p_out)
    upper = np.triu(g.random((n, n)) < prob, 1)
    row, col = np.nonzero(upper | upper.T)
    return torch.tensor(np.stack([row, col]), dtype=torch.long)


def small_graphs(count: int, seed: int) -> list:
    """``count`` small graphs with features, an edge attribute and a graph label."""
    out = []
    g = rng(seed)
    for i in range(count):
        n = int(g.integers(4, 8))
        ei = random_edges(n, 2 * n, seed + 100 + i)
        ei = U.to_undirected(ei, num_nodes=n)
        x = torch.tensor(g.standard_normal((n, 3)), dtype=torch.float32)
        ea = torch.tensor(g.standard_normal((ei.size(1), 2)), dtype=torch.float32)
        y = torch.tensor([int(g.integers(0, 2))])
        out.append(Data(x=x, edge_index=ei, edge_attr=ea, y=y))
    return out


def grads_of(name: str, out: torch.Tensor, inputs: dict[str, torch.Tensor]) -> None:
    """Record ``out`` and the gradients of a fixed weighted sum of it."""
    put(name + ".out", out)
    w = torch.tensor(rng(7).standard_normal(tuple(out.shape)), dtype=out.dtype)
    (out * w).sum().backward()
    for key, t in inputs.items():
        put(f"{name}.grad.{key}", t.grad if t.grad is not None else np.zeros(0))


# ------------------------------------------------------------------ data and batching


@case
def data_basics() -> None:
    ei = random_edges(6, 10, 1)
    d = Data(x=features(6, 3), edge_index=ei, y=torch.arange(6) % 2)
    put("data.num_nodes", d.num_nodes)
    put("data.num_edges", d.num_edges)
    put("data.num_node_features", d.num_node_features)
    put("data.is_undirected", d.is_undirected())
    put("data.has_self_loops", d.has_self_loops())
    put("data.has_isolated_nodes", d.has_isolated_nodes())
    put("data.keys", sorted(d.keys()))
    sub = d.subgraph(torch.tensor([0, 2, 3, 5]))
    put("data.subgraph.edge_index", sub.edge_index)
    put("data.subgraph.x", sub.x)
    put("data.clone_equal", bool((d.clone().x == d.x).all()))


@case
def batch_from_list() -> None:
    graphs = small_graphs(3, 2)
    b = Batch.from_data_list(graphs)
    put("batch.batch", b.batch)
    put("batch.ptr", b.ptr)
    put("batch.edge_index", b.edge_index)
    put("batch.x", b.x)
    put("batch.y", b.y)
    put("batch.num_graphs", b.num_graphs)
    back = b.to_data_list()
    put("batch.back.edge_index1", back[1].edge_index)
    put("batch.get_example2.x", b.get_example(2).x)
    put("batch.index_select", Batch.from_data_list(b.index_select([2, 0])).edge_index)


@case
def dataloader_batches() -> None:
    graphs = small_graphs(5, 3)
    loader = DataLoader(graphs, batch_size=2, shuffle=False)
    put("loader.len", len(loader))
    for i, b in enumerate(loader):
        put(f"loader.{i}.edge_index", b.edge_index)
        put(f"loader.{i}.batch", b.batch)
        put(f"loader.{i}.ptr", b.ptr)
        put(f"loader.{i}.y", b.y)
        put(f"loader.{i}.edge_attr", b.edge_attr)
    loader = DataLoader(graphs, batch_size=3, follow_batch=["edge_attr"], exclude_keys=["y"])
    for i, b in enumerate(loader):
        put(f"loader.follow.{i}.edge_attr_batch", b.edge_attr_batch)
        put(f"loader.follow.{i}.keys", sorted(b.keys()))


@case
def dataloader_workers() -> None:
    # collated in two worker processes (PyG writes each batch into a new storage there)
    graphs = small_graphs(5, 3)
    loader = DataLoader(graphs, batch_size=2, num_workers=2)
    for i, b in enumerate(loader):
        put(f"workers.{i}.edge_index", b.edge_index)
        put(f"workers.{i}.x", b.x)
        put(f"workers.{i}.batch", b.batch)
        put(f"workers.{i}.edge_attr", b.edge_attr)


# ------------------------------------------------------------------ utils


@case
def utils_loops_degree() -> None:
    ei = random_edges(5, 8, 4)
    ew = torch.tensor(rng(4).random(8), dtype=torch.float32)
    loops, w = U.add_self_loops(ei, ew, fill_value=2.0, num_nodes=5)
    put("utils.add_self_loops.ei", loops)
    put("utils.add_self_loops.w", w)
    put("utils.remove_self_loops", U.remove_self_loops(loops)[0])
    rem, rw = U.add_remaining_self_loops(loops, w, fill_value=1.0, num_nodes=5)
    put("utils.add_remaining_self_loops.ei", rem)
    put("utils.add_remaining_self_loops.w", rw)
    put("utils.contains_self_loops", U.contains_self_loops(loops))
    put("utils.degree.in", U.degree(ei[1], 5))
    put("utils.degree.out_long", U.degree(ei[0], 5, dtype=torch.long))


@case
def utils_undirected_coalesce() -> None:
    ei = random_edges(6, 9, 5)
    ea = features(9, 2, 5)
    und, uattr = U.to_undirected(ei, ea, num_nodes=6, reduce="mean")
    put("utils.to_undirected.ei", und)
    put("utils.to_undirected.attr", uattr)
    put("utils.is_undirected.before", U.is_undirected(ei, num_nodes=6))
    put("utils.is_undirected.after", U.is_undirected(und, num_nodes=6))
    dup = torch.cat([ei, ei[:, :4]], 1)
    dattr = torch.cat([ea, ea[:4] * 2], 0)
    c, cattr = U.coalesce(dup, dattr, num_nodes=6, reduce="add")
    put("utils.coalesce.ei", c)
    put("utils.coalesce.attr", cattr)
    put("utils.sort_edge_index", U.sort_edge_index(ei, sort_by_row=False))


@case
def utils_scatter_softmax() -> None:
    src = features(10, 3, 6).requires_grad_()
    index = torch.tensor([0, 1, 0, 2, 2, 2, 4, 1, 0, 4])
    for reduce in ["sum", "mean", "max", "min", "mul"]:
        s = src.detach().clone().requires_grad_()
        out = U.scatter(s, index, dim=0, dim_size=5, reduce=reduce)
        grads_of(f"utils.scatter.{reduce}", out, {"src": s})
    s = src.detach().clone().requires_grad_()
    grads_of("utils.softmax.index", U.softmax(s, index, num_nodes=5), {"src": s})
    ptr = torch.tensor([0, 3, 3, 7, 10])
    s = src.detach().clone().requires_grad_()
    grads_of("utils.softmax.ptr", U.softmax(s, ptr=ptr), {"src": s})


@case
def utils_dense() -> None:
    graphs = small_graphs(3, 7)
    b = Batch.from_data_list(graphs)
    put("utils.to_dense_adj", U.to_dense_adj(b.edge_index, b.batch))
    put("utils.to_dense_adj.attr", U.to_dense_adj(b.edge_index, b.batch, b.edge_attr[:, 0]))
    dense, mask = U.to_dense_batch(b.x, b.batch, fill_value=-1.0)
    put("utils.to_dense_batch.x", dense)
    put("utils.to_dense_batch.mask", mask)
    adj = (torch.tensor(rng(8).random((5, 5))) > 0.5).float()
    ei, ew = U.dense_to_sparse(adj)
    put("utils.dense_to_sparse.ei", ei)
    put("utils.dense_to_sparse.w", ew)
    put("utils.unbatch.1", U.unbatch(b.x, b.batch)[1])
    put("utils.unbatch_edge_index.2", U.unbatch_edge_index(b.edge_index, b.batch)[2])


@case
def utils_subgraphs() -> None:
    ei = U.to_undirected(random_edges(8, 12, 9), num_nodes=8)
    ea = torch.arange(ei.size(1), dtype=torch.float32)
    sub, sattr = U.subgraph([0, 1, 3, 4, 6], ei, ea, relabel_nodes=True, num_nodes=8)
    put("utils.subgraph.ei", sub)
    put("utils.subgraph.attr", sattr)
    mask = torch.tensor([True, False, True, True, False, False, True, True])
    sub2, _, emask = U.subgraph(mask, ei, return_edge_mask=True)
    put("utils.subgraph.mask.ei", sub2)
    put("utils.subgraph.mask.emask", emask)
    subset, kei, mapping, kmask = U.k_hop_subgraph(2, 2, ei, relabel_nodes=True, num_nodes=8)
    put("utils.k_hop.subset", subset)
    put("utils.k_hop.ei", kei)
    put("utils.k_hop.mapping", mapping)
    put("utils.k_hop.mask", kmask)
    put("utils.index_to_mask", U.index_to_mask(torch.tensor([1, 4]), size=6))
    put("utils.mask_to_index", U.mask_to_index(mask))
    put("utils.one_hot", U.one_hot(torch.tensor([0, 2, 1, 2]), 3))
    lei, lw = U.get_laplacian(ei, normalization="sym", num_nodes=8)
    put("utils.get_laplacian.ei", lei)
    put("utils.get_laplacian.w", lw)
    put("utils.homophily", U.homophily(ei, torch.arange(8) % 3))


# ------------------------------------------------------------------ layers


N_NODES, N_IN = 7, 4


def conv_case(name: str, make: Callable[[], torch.nn.Module], edge_dim: int = 0) -> None:
    conv = module(name, make)
    conv.eval()
    x = features(N_NODES, N_IN, 11).requires_grad_()
    ei = random_edges(N_NODES, 16, 12)
    args: list = [x, ei]
    inputs = {"x": x}
    if edge_dim:
        ea = features(16, edge_dim, 13).requires_grad_()
        args.append(ea)
        inputs["edge_attr"] = ea
    out = conv(*args)
    inputs.update(dict(conv.named_parameters()))
    grads_of(f"conv.{name}", out, inputs)


def _gin_mlp() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(N_IN, 8), torch.nn.ReLU(), torch.nn.Linear(8, 5))


LAYERS: dict[str, tuple[Callable[[], torch.nn.Module], int]] = {
    "GCNConv": (lambda: gnn.GCNConv(N_IN, 5), 0),
    "GCNConv_noself": (lambda: gnn.GCNConv(N_IN, 5, add_self_loops=False, bias=False), 0),
    "GATConv": (lambda: gnn.GATConv(N_IN, 3, heads=2), 0),
    "GATConv_edge": (lambda: gnn.GATConv(N_IN, 3, heads=2, concat=False, edge_dim=2), 2),
    "GATv2Conv": (lambda: gnn.GATv2Conv(N_IN, 3, heads=2, edge_dim=2), 2),
    "SAGEConv_mean": (lambda: gnn.SAGEConv(N_IN, 5), 0),
    "SAGEConv_max": (lambda: gnn.SAGEConv(N_IN, 5, aggr="max", normalize=True), 0),
    "GINConv": (lambda: gnn.GINConv(_gin_mlp(), train_eps=True), 0),
    "GINEConv": (lambda: gnn.GINEConv(_gin_mlp(), edge_dim=2), 2),
    "GraphConv": (lambda: gnn.GraphConv(N_IN, 5, aggr="mean"), 0),
    "ChebConv": (lambda: gnn.ChebConv(N_IN, 5, K=3), 0),
    "TransformerConv": (lambda: gnn.TransformerConv(N_IN, 3, heads=2, edge_dim=2), 2),
    "EdgeConv": (
        lambda: gnn.EdgeConv(torch.nn.Sequential(torch.nn.Linear(2 * N_IN, 5), torch.nn.Tanh())),
        0,
    ),
    "SGConv": (lambda: gnn.SGConv(N_IN, 5, K=2), 0),
    "APPNP": (lambda: gnn.APPNP(K=3, alpha=0.2), 0),
    "ResGatedGraphConv": (lambda: gnn.ResGatedGraphConv(N_IN, 5), 0),
    "LEConv": (lambda: gnn.LEConv(N_IN, 5), 0),
}


def _layer_case(name: str) -> Callable[[], None]:
    make, edge_dim = LAYERS[name]

    def run() -> None:
        conv_case(name, make, edge_dim)

    run.__name__ = f"conv_{name}"
    return run


for _name in LAYERS:
    case(_layer_case(_name))


Call = Callable[[Any, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]
ONE_BATCH = torch.tensor([0, 0, 0, 1, 1, 1, 1])  # two graphs of the N_NODES nodes
EDGE_TYPES = torch.tensor(np.arange(16) % 3)


def _dense(m: Any, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
    return m(x.unsqueeze(0), adj.unsqueeze(0))


def _adj(ei: torch.Tensor) -> torch.Tensor:
    return U.to_dense_adj(ei, max_num_nodes=N_NODES)[0]


# more layers, each with how it is called on (x, edge_index, edge_attr of 2 channels)
MORE_LAYERS: dict[str, tuple[Callable[[], Any], Call]] = {
    "GCN2Conv": (
        lambda: gnn.GCN2Conv(N_IN, alpha=0.1, theta=0.5, layer=2),
        lambda m, x, ei, ea: m(x, x * 0.5, ei),
    ),
    "TAGConv": (lambda: gnn.TAGConv(N_IN, 3), lambda m, x, ei, ea: m(x, ei)),
    "ARMAConv": (
        lambda: gnn.ARMAConv(N_IN, 3, num_stacks=2, num_layers=2),
        lambda m, x, ei, ea: m(x, ei),
    ),
    "GatedGraphConv": (
        lambda: gnn.GatedGraphConv(N_IN, num_layers=2),
        lambda m, x, ei, ea: m(x, ei),
    ),
    "NNConv": (
        lambda: gnn.NNConv(N_IN, 3, torch.nn.Linear(2, 3 * N_IN), aggr="mean"),
        lambda m, x, ei, ea: m(x, ei, ea),
    ),
    "RGCNConv": (
        lambda: gnn.RGCNConv(N_IN, 3, num_relations=3, num_bases=2),
        lambda m, x, ei, ea: m(x, ei, EDGE_TYPES),
    ),
    "GENConv": (
        lambda: gnn.GENConv(N_IN, 3, aggr="softmax", learn_t=True, edge_dim=2),
        lambda m, x, ei, ea: m(x, ei, ea),
    ),
    "PNAConv": (
        lambda: gnn.PNAConv(
            N_IN,
            3,
            ["mean", "max", "std"],
            ["identity", "amplification"],
            deg=torch.tensor([1, 3, 4]),
        ),
        lambda m, x, ei, ea: m(x, ei),
    ),
    "GPSConv": (
        lambda: gnn.GPSConv(N_IN, gnn.GINConv(torch.nn.Linear(N_IN, N_IN)), heads=2),
        lambda m, x, ei, ea: m(x, ei, ONE_BATCH),
    ),
    "GeneralConv": (
        lambda: gnn.GeneralConv(N_IN, 3, in_edge_channels=2, attention=True, heads=2),
        lambda m, x, ei, ea: m(x, ei, ea),
    ),
    "PDNConv": (
        lambda: gnn.PDNConv(N_IN, 3, edge_dim=2, hidden_channels=4),
        lambda m, x, ei, ea: m(x, ei, ea),
    ),
    "CGConv": (lambda: gnn.CGConv(N_IN, dim=2), lambda m, x, ei, ea: m(x, ei, ea)),
    "MixHopConv": (lambda: gnn.MixHopConv(N_IN, 3), lambda m, x, ei, ea: m(x, ei)),
    "DirGNNConv": (lambda: gnn.DirGNNConv(gnn.GCNConv(N_IN, 3)), lambda m, x, ei, ea: m(x, ei)),
    "EGConv": (
        lambda: gnn.EGConv(N_IN, N_IN, aggregators=["sum", "max"], num_heads=2, num_bases=2),
        lambda m, x, ei, ea: m(x, ei),
    ),
    "FiLMConv": (lambda: gnn.FiLMConv(N_IN, 3), lambda m, x, ei, ea: m(x, ei)),
    "SuperGATConv": (lambda: gnn.SuperGATConv(N_IN, 3, heads=2), lambda m, x, ei, ea: m(x, ei)),
    "DenseGCNConv": (
        lambda: gnn.DenseGCNConv(N_IN, 3),
        lambda m, x, ei, ea: _dense(m, x, _adj(ei)),
    ),
    "DenseSAGEConv": (
        lambda: gnn.DenseSAGEConv(N_IN, 3),
        lambda m, x, ei, ea: _dense(m, x, _adj(ei)),
    ),
    "DMoNPooling": (
        lambda: gnn.DMoNPooling(N_IN, 2),
        lambda m, x, ei, ea: torch.cat([t.reshape(-1) for t in _dense(m, x, _adj(ei))[1:]]),
    ),
    "ASAPooling": (lambda: gnn.ASAPooling(N_IN, ratio=0.5), lambda m, x, ei, ea: m(x, ei)[0]),
    "EdgePooling": (
        lambda: gnn.EdgePooling(N_IN, dropout=0.0),
        lambda m, x, ei, ea: m(x, ei, ONE_BATCH)[0],
    ),
    "GraphUNet": (lambda: gnn.models.GraphUNet(N_IN, 8, 3, depth=2), lambda m, x, ei, ea: m(x, ei)),
    "AttentiveFP": (
        lambda: gnn.models.AttentiveFP(N_IN, 8, 3, edge_dim=2, num_layers=2, num_timesteps=2),
        lambda m, x, ei, ea: m(x, ei, ea, ONE_BATCH),
    ),
    "JumpingKnowledge_lstm": (
        lambda: gnn.JumpingKnowledge("lstm", N_IN, num_layers=2),
        lambda m, x, ei, ea: m([x, x.tanh(), x * 2]),
    ),
    "pyg_Sequential": (
        lambda: gnn.Sequential(
            "x, edge_index",
            [
                (gnn.GCNConv(N_IN, 8), "x, edge_index -> x"),
                torch.nn.ReLU(inplace=True),
                (gnn.GCNConv(8, 3), "x, edge_index -> x"),
            ],
        ),
        lambda m, x, ei, ea: m(x, ei),
    ),
    "aggr_LSTM": (lambda: gnn.aggr.LSTMAggregation(N_IN, 3), lambda m, x, ei, ea: m(x, ONE_BATCH)),
    "aggr_GRU": (lambda: gnn.aggr.GRUAggregation(N_IN, 3), lambda m, x, ei, ea: m(x, ONE_BATCH)),
    "aggr_Sort": (lambda: gnn.aggr.SortAggregation(k=3), lambda m, x, ei, ea: m(x, ONE_BATCH)),
    "aggr_SetTransformer": (
        lambda: gnn.aggr.SetTransformerAggregation(N_IN, heads=2),
        lambda m, x, ei, ea: m(x, ONE_BATCH),
    ),
    "aggr_GraphMultisetTransformer": (
        lambda: gnn.aggr.GraphMultisetTransformer(N_IN, k=2, heads=2),
        lambda m, x, ei, ea: m(x, ONE_BATCH),
    ),
    "HeteroLinear": (
        lambda: gnn.HeteroLinear(N_IN, 3, num_types=3),
        lambda m, x, ei, ea: m(x, torch.tensor([0, 1, 2, 0, 1, 2, 0])),
    ),
    "DiffGroupNorm": (lambda: gnn.DiffGroupNorm(N_IN, 2), lambda m, x, ei, ea: m(x)),
}


def _more_case(name: str) -> Callable[[], None]:
    make, call = MORE_LAYERS[name]

    def run() -> None:
        m = module(name, make)
        m.eval()
        x = features(N_NODES, N_IN, 17).requires_grad_()
        ei = random_edges(N_NODES, 16, 18)
        ea = features(16, 2, 19).requires_grad_()
        out = call(m, x, ei, ea)
        grads_of(f"layer.{name}", out, {"x": x, "edge_attr": ea, **dict(m.named_parameters())})

    run.__name__ = f"layer_{name}"
    return run


for _name in MORE_LAYERS:
    case(_more_case(_name))


@case
def gat_attention_weights() -> None:
    conv = module("GATConv_att", lambda: gnn.GATConv(N_IN, 3, heads=2))
    x = features(N_NODES, N_IN, 14)
    ei = random_edges(N_NODES, 12, 15)
    out, (aei, alpha) = conv(x, ei, return_attention_weights=True)
    put("gat_att.out", out)
    put("gat_att.ei", aei)
    put("gat_att.alpha", alpha)


@case
def pooling() -> None:
    b = Batch.from_data_list(small_graphs(3, 16))
    x = b.x.clone().requires_grad_()
    for name, fn in [
        ("mean", gnn.global_mean_pool),
        ("max", gnn.global_max_pool),
        ("add", gnn.global_add_pool),
    ]:
        xi = x.detach().clone().requires_grad_()
        grads_of(f"pool.global_{name}", fn(xi, b.batch), {"x": xi})
    topk = module("TopKPooling", lambda: gnn.TopKPooling(3, ratio=0.5))
    xi = x.detach().clone().requires_grad_()
    px, pei, pea, pbatch, perm, score = topk(xi, b.edge_index, b.edge_attr, b.batch)
    put("pool.topk.ei", pei)
    put("pool.topk.batch", pbatch)
    put("pool.topk.perm", perm)
    put("pool.topk.edge_attr", pea)
    inputs = {"x": xi, **dict(topk.named_parameters())}
    grads_of("pool.topk", px, inputs)


@case
def models_and_norms() -> None:
    b = Batch.from_data_list(small_graphs(3, 51))
    makers = {
        "GCN": lambda: gnn.models.GCN(3, 8, num_layers=2, out_channels=4, norm="batch_norm"),
        "GraphSAGE": lambda: gnn.models.GraphSAGE(3, 8, num_layers=2, jk="cat"),
        "GIN": lambda: gnn.models.GIN(3, 8, num_layers=2, out_channels=2),
        "GAT": lambda: gnn.models.GAT(3, 8, num_layers=2, heads=2, v2=True),
        "MLP": lambda: gnn.models.MLP([3, 8, 4], norm="layer_norm"),
    }
    for name, make in makers.items():
        m = module(f"model_{name}", make)
        m.eval()
        x = b.x.clone().requires_grad_()
        out = m(x) if name == "MLP" else m(x, b.edge_index)
        grads_of(f"model.{name}", out, {"x": x, **dict(m.named_parameters())})
    norms = {
        "GraphNorm": lambda: gnn.GraphNorm(3),
        "LayerNorm_graph": lambda: gnn.LayerNorm(3, mode="graph"),
        "InstanceNorm": lambda: gnn.InstanceNorm(3, affine=True),
        "PairNorm": lambda: gnn.PairNorm(),
    }
    for name, make in norms.items():
        m = module(f"norm_{name}", make)
        x = b.x.clone().requires_grad_()
        grads_of(f"norm.{name}", m(x, b.batch), {"x": x, **dict(m.named_parameters())})
    bn = module("norm_BatchNorm", lambda: gnn.BatchNorm(3))
    x = b.x.clone().requires_grad_()
    grads_of("norm.BatchNorm.train", bn(x), {"x": x})
    put("norm.BatchNorm.running_mean", bn.module.running_mean)
    put("norm.BatchNorm.running_var", bn.module.running_var)


@case
def aggregations() -> None:
    b = Batch.from_data_list(small_graphs(3, 52))
    makers = {
        "Multi": lambda: gnn.aggr.MultiAggregation(["mean", "max", "std"]),
        "Softmax": lambda: gnn.aggr.SoftmaxAggregation(learn=True),
        "PowerMean": lambda: gnn.aggr.PowerMeanAggregation(learn=True),
        "Attentional": lambda: gnn.aggr.AttentionalAggregation(torch.nn.Linear(3, 1)),
        "Set2Set": lambda: gnn.aggr.Set2Set(3, processing_steps=2),
        "Median": lambda: gnn.aggr.MedianAggregation(),
        "Var": lambda: gnn.aggr.VarAggregation(),
    }
    for name, make in makers.items():
        m = module(f"aggr_{name}", make)
        x = b.x.clone().requires_grad_()
        grads_of(f"aggr.{name}", m(x, b.batch), {"x": x, **dict(m.named_parameters())})
    ptr_x = b.x.clone().requires_grad_()
    out = gnn.aggr.SumAggregation()(ptr_x, ptr=b.ptr)
    grads_of("aggr.Sum.ptr", out, {"x": ptr_x})


class EdgeWeightedMean(gnn.MessagePassing):
    """A user-written layer: weighted messages through a linear map, mean-aggregated."""

    def __init__(self, cin: int, cout: int) -> None:
        super().__init__(aggr="mean", flow="target_to_source")
        self.lin = torch.nn.Linear(cin, cout)

    def forward(self, x: torch.Tensor, ei: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return self.propagate(ei, x=self.lin(x), w=w)

    def message(self, x_j: torch.Tensor, x_i: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return w.view(-1, 1) * (x_j - x_i).tanh()

    def update(self, aggr_out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return aggr_out + x


@case
def custom_message_passing() -> None:
    conv = module("custom_mp", lambda: EdgeWeightedMean(N_IN, 3))
    x = features(N_NODES, N_IN, 53).requires_grad_()
    ei = random_edges(N_NODES, 14, 54)
    w = torch.tensor(rng(55).random(14), dtype=torch.float32).requires_grad_()
    grads_of("custom_mp", conv(x, ei, w), {"x": x, "w": w, **dict(conv.named_parameters())})


@case
def sparse_adjacency() -> None:
    conv = module("GCNConv_sparse", lambda: gnn.GCNConv(N_IN, 5))
    x = features(N_NODES, N_IN, 56).requires_grad_()
    ei = random_edges(N_NODES, 16, 57)
    adj = U.to_torch_csr_tensor(ei, size=(N_NODES, N_NODES))
    put("sparse.csr.crow", adj.crow_indices())
    coo = U.to_torch_coo_tensor(ei, size=N_NODES)
    put("sparse.coo.indices", coo.coalesce().indices())
    back, val = U.to_edge_index(adj)
    put("sparse.to_edge_index", back)
    put("sparse.to_edge_index.val", val)
    adj_t = U.to_torch_csr_tensor(ei.flip(0), size=(N_NODES, N_NODES))
    out = conv(x, adj_t)
    grads_of("sparse.gcn", out, {"x": x, **dict(conv.named_parameters())})
    sage = module("SAGEConv_sparse", lambda: gnn.SAGEConv(N_IN, 5))
    x2 = x.detach().clone().requires_grad_()
    grads_of("sparse.sage", sage(x2, adj_t), {"x": x2, **dict(sage.named_parameters())})


@case
def hetero() -> None:
    from torch_geometric.data import HeteroData

    data = HeteroData()
    data["paper"].x = features(5, 4, 58)
    data["author"].x = features(3, 2, 59)
    g = rng(60)
    writes = torch.tensor(np.stack([g.integers(0, 3, 7), g.integers(0, 5, 7)]))
    data["author", "writes", "paper"].edge_index = writes
    data["paper", "cites", "paper"].edge_index = random_edges(5, 6, 61)
    data = T.ToUndirected()(data)
    put("hetero.edge_types", sorted("__".join(t) for t in data.edge_types))
    put("hetero.rev_writes", data["paper", "rev_writes", "author"].edge_index)
    put("hetero.num_nodes", data.num_nodes)
    homo = data.to_homogeneous()
    put("hetero.homo.edge_index", homo.edge_index)
    put("hetero.homo.node_type", homo.node_type)
    conv = module(
        "hetero_conv",
        lambda: gnn.HeteroConv(
            {
                ("author", "writes", "paper"): gnn.SAGEConv((2, 4), 6),
                ("paper", "cites", "paper"): gnn.GCNConv(4, 6),
                ("paper", "rev_writes", "author"): gnn.GATConv((4, 2), 6, add_self_loops=False),
            },
            aggr="sum",
        ),
    )
    xs = {k: v.clone().requires_grad_() for k, v in data.x_dict.items()}
    out = conv(xs, data.edge_index_dict)
    total = out["paper"].sum() * 0.5 + (out["author"] ** 2).sum()
    total.backward()
    put("hetero.out.paper", out["paper"])
    put("hetero.out.author", out["author"])
    put("hetero.grad.paper", xs["paper"].grad)
    put("hetero.grad.author", xs["author"].grad)
    for name, p in conv.named_parameters():
        put(f"hetero.grad.{name}", p.grad)


@case
def networkx_scipy() -> None:
    ei = random_edges(6, 9, 62)
    d = Data(x=features(6, 2, 63), edge_index=ei)
    g = U.to_networkx(d, node_attrs=["x"], to_undirected=True)
    put("nx.edges", sorted(g.edges()))
    back = U.from_networkx(g)
    put("nx.back.edge_index", back.edge_index)
    put("nx.back.x", back.x)
    sp = U.to_scipy_sparse_matrix(ei, num_nodes=6)
    put("scipy.dense", sp.toarray())
    ei2, w2 = U.from_scipy_sparse_matrix(sp)
    put("scipy.back.ei", ei2)
    put("scipy.back.w", w2)


@case
def pooling_more() -> None:
    b = Batch.from_data_list(small_graphs(3, 64))
    sag = module("SAGPooling", lambda: gnn.SAGPooling(3, ratio=0.6))
    x = b.x.clone().requires_grad_()
    px, pei, _, pbatch, perm, score = sag(x, b.edge_index, batch=b.batch)
    put("pool.sag.ei", pei)
    put("pool.sag.perm", perm)
    grads_of("pool.sag", px, {"x": x, **dict(sag.named_parameters())})
    from torch_geometric.nn.pool import max_pool_x

    cluster = torch.tensor(np.arange(b.num_nodes) // 2)
    xm, bm = max_pool_x(cluster, b.x, b.batch)
    put("pool.max_pool_x.x", xm)
    put("pool.max_pool_x.batch", bm)


class HeteroNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = gnn.SAGEConv((-1, -1), 4)
        self.conv2 = gnn.GraphConv((-1, -1), 3)
        self.lin = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        h = self.conv1(x, edge_index).relu()
        return self.lin(self.conv2(h, edge_index))


@case
def to_hetero_fx() -> None:
    from torch_geometric.data import HeteroData
    from torch_geometric.nn import to_hetero

    data = HeteroData()
    data["a"].x = features(4, 3, 65)
    data["b"].x = features(3, 2, 66)
    data["a", "to", "b"].edge_index = torch.tensor([[0, 1, 3, 2], [0, 2, 1, 1]])
    data["b", "rev", "a"].edge_index = torch.tensor([[0, 2, 1, 1], [0, 1, 3, 2]])
    data["a", "self", "a"].edge_index = random_edges(4, 5, 67)
    model = module(
        "to_hetero",
        lambda: to_hetero(HeteroNet(), data.metadata(), aggr="mean"),
        warm=lambda m: m(data.x_dict, data.edge_index_dict),
    )
    put("to_hetero.params", sorted(k for k, _ in model.named_parameters()))
    xs = {k: v.clone().requires_grad_() for k, v in data.x_dict.items()}
    out = model(xs, data.edge_index_dict)
    ((out["a"] * 1.5).sum() + (out["b"] ** 2).sum()).backward()
    for t in ("a", "b"):
        put(f"to_hetero.out.{t}", out[t])
        put(f"to_hetero.grad.x.{t}", xs[t].grad)
    for name, p in model.named_parameters():
        put(f"to_hetero.grad.{name}", p.grad)


def _toy_dataset(root: str) -> Any:
    from torch_geometric.data import InMemoryDataset

    class Toy(InMemoryDataset):
        def __init__(self, root: str) -> None:
            super().__init__(root, transform=T.Constant(1.0), log=False)
            self.load(self.processed_paths[0])

        @property
        def raw_file_names(self) -> list:
            return []

        @property
        def processed_file_names(self) -> list:
            return ["toy.pt"]

        def download(self) -> None:
            pass

        def process(self) -> None:
            self.save(small_graphs(4, 68), self.processed_paths[0])

    return Toy(root)


@case
def in_memory_dataset() -> None:
    # processed and saved by this side's torch.save, read back by its torch.load
    ds = _toy_dataset(f"{OUT}/toy_{SIDE}")
    put("dataset.len", len(ds))
    put("dataset.num_features", ds.num_features)
    put("dataset.2.x", ds[2].x)
    put("dataset.3.edge_index", ds[3].edge_index)
    put("dataset.y", ds.y)
    put("dataset.slice", Batch.from_data_list(ds[1:3]).edge_attr)
    # the oracle's processed file (PyTorch's torch.save), read by this side
    other = _toy_dataset(f"{OUT}/toy_oracle")
    put("dataset.oracle_file.x", Batch.from_data_list(list(other)).x)


# ------------------------------------------------------------------ training loops


class GCN(torch.nn.Module):
    def __init__(self, cin: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.conv1 = gnn.GCNConv(cin, hidden)
        self.conv2 = gnn.GCNConv(hidden, classes)

    def forward(self, x: torch.Tensor, ei: torch.Tensor) -> torch.Tensor:
        return self.conv2(self.conv1(x, ei).relu(), ei)


@case
def node_classification() -> None:
    sizes = [8, 8, 8]
    ei = sbm(sizes, 0.5, 0.05, 21)
    y = torch.tensor(np.repeat(np.arange(3), sizes))
    x = torch.tensor(
        rng(22).standard_normal((24, 5)) + np.eye(3)[y.numpy()] @ np.ones((3, 5)) * 0.5,
        dtype=torch.float32,
    )
    data = T.NormalizeFeatures()(Data(x=x, edge_index=ei, y=y))
    train = torch.tensor(rng(23).random(24) < 0.5)
    model = module("node_gcn", lambda: GCN(5, 8, 3))
    opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        out = model(data.x, data.edge_index)
        loss = torch.nn.functional.cross_entropy(out[train], data.y[train])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    put("node.losses", losses)
    model.eval()
    with torch.no_grad():
        logits = model(data.x, data.edge_index)
    put("node.logits", logits)
    put("node.pred", logits.argmax(-1))
    put("node.conv1.weight", model.conv1.lin.weight)


class GraphNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        mlp = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8))
        self.conv1 = gnn.GINConv(mlp)
        self.conv2 = gnn.GraphConv(8, 8)
        self.head = torch.nn.Linear(16, 2)

    def forward(self, x: torch.Tensor, ei: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        h = self.conv1(x, ei).relu()
        h = self.conv2(h, ei).relu()
        pooled = torch.cat([gnn.global_mean_pool(h, batch), gnn.global_max_pool(h, batch)], -1)
        return self.head(pooled)


@case
def graph_classification() -> None:
    graphs = small_graphs(8, 31)
    loader = DataLoader(graphs, batch_size=3, shuffle=False)
    model = module("graph_net", GraphNet)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(3):
        for b in loader:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(b.x, b.edge_index, b.batch), b.y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    put("graph.losses", losses)
    full = Batch.from_data_list(graphs)
    with torch.no_grad():
        put("graph.logits", model(full.x, full.edge_index, full.batch))
    put("graph.head.weight", model.head.weight)


# ------------------------------------------------------------------ transforms, datasets


@case
def transforms() -> None:
    ei = random_edges(6, 8, 41)
    x = torch.tensor(rng(41).random((6, 3)), dtype=torch.float32)
    ea = features(8, 2, 42)
    base = Data(x=x, edge_index=ei, edge_attr=ea, num_nodes=6)
    put("T.NormalizeFeatures", T.NormalizeFeatures()(base.clone()).x)
    und = T.ToUndirected()(base.clone())
    put("T.ToUndirected.ei", und.edge_index)
    put("T.ToUndirected.ea", und.edge_attr)
    loops = T.AddSelfLoops(attr="edge_attr", fill_value="mean")(base.clone())
    put("T.AddSelfLoops.ei", loops.edge_index)
    put("T.AddSelfLoops.ea", loops.edge_attr)
    comp = T.Compose([T.ToUndirected(), T.AddSelfLoops(), T.GCNNorm()])(
        Data(x=x, edge_index=ei, num_nodes=6)
    )
    put("T.Compose.GCNNorm.ei", comp.edge_index)
    put("T.Compose.GCNNorm.w", comp.edge_weight)
    put("T.OneHotDegree", T.OneHotDegree(4)(Data(edge_index=ei, num_nodes=6)).x)
    put("T.Constant", T.Constant(0.5)(base.clone()).x)
    put("T.LocalDegreeProfile", T.LocalDegreeProfile()(Data(edge_index=ei, num_nodes=6)).x)
    iso = T.RemoveIsolatedNodes()(Data(x=x, edge_index=ei[:, :3], num_nodes=6))
    put("T.RemoveIsolatedNodes.x", iso.x)
    put("T.RemoveIsolatedNodes.ei", iso.edge_index)
    pos = torch.tensor(rng(43).random((6, 2)), dtype=torch.float32)
    put("T.Distance", T.Distance()(Data(pos=pos, edge_index=ei)).edge_attr)
    put("T.Cartesian", T.Cartesian()(Data(pos=pos, edge_index=ei)).edge_attr)
    put("T.TargetIndegree", T.TargetIndegree()(Data(edge_index=ei, num_nodes=6)).edge_attr)


@case
def transforms_more() -> None:
    ei = U.to_undirected(random_edges(8, 10, 44), num_nodes=8)
    x = features(8, 3, 45)
    pos = torch.tensor(rng(46).random((8, 3)), dtype=torch.float32)
    base = Data(x=x, edge_index=ei, pos=pos, num_nodes=8)
    put("T.AddRandomWalkPE", T.AddRandomWalkPE(3)(base.clone()).random_walk_pe)
    vn = T.VirtualNode()(base.clone())
    put("T.VirtualNode.ei", vn.edge_index)
    put("T.VirtualNode.x", vn.x)
    put("T.VirtualNode.edge_type", vn.edge_type)
    lcc = T.LargestConnectedComponents()(base.clone())
    put("T.LargestConnectedComponents.ei", lcc.edge_index)
    put("T.LargestConnectedComponents.x", lcc.x)
    sp = T.ToSparseTensor()(base.clone())
    put("T.ToSparseTensor.crow", sp.adj_t.crow_indices())
    put("T.ToSparseTensor.col", sp.adj_t.col_indices())
    gdc = T.GDC(sparsification_kwargs=dict(method="topk", k=3, dim=0))(
        Data(edge_index=ei, num_nodes=8)
    )
    put("T.GDC.ei", gdc.edge_index)
    put("T.GDC.w", gdc.edge_attr)
    line = T.LineGraph()(
        Data(edge_index=ei, edge_attr=torch.arange(ei.size(1)).float(), num_nodes=8)
    )
    put("T.LineGraph.ei", line.edge_index)
    put("T.LineGraph.x", line.x)
    put("T.Center", T.Center()(base.clone()).pos)
    put("T.NormalizeScale", T.NormalizeScale()(base.clone()).pos)
    put("T.Polar", T.Polar()(Data(pos=pos[:, :2], edge_index=ei)).edge_attr)
    put("T.Spherical", T.Spherical()(Data(pos=pos, edge_index=ei)).edge_attr)
    norm = torch.nn.functional.normalize(features(8, 3, 47), dim=-1)
    ppf = T.PointPairFeatures()(Data(pos=pos, norm=norm, edge_index=ei))
    put("T.PointPairFeatures", ppf.edge_attr)
    put("T.AddRemainingSelfLoops", T.AddRemainingSelfLoops()(base.clone()).edge_index)
    dup = Data(edge_index=torch.cat([ei, ei[:, :3]], 1), num_nodes=8)
    put("T.RemoveDuplicatedEdges", T.RemoveDuplicatedEdges()(dup).edge_index)
    face = torch.tensor([[0, 1, 2], [1, 2, 3], [2, 3, 4]]).t()
    put("T.FaceToEdge", T.FaceToEdge()(Data(pos=pos, face=face)).edge_index)
    put("T.Pad", T.Pad(10, 30, node_pad_value=-1.0)(base.clone()).x)
    missing = torch.tensor(rng(48).random((8, 3)) < 0.3)
    fx = x.clone()
    fx[missing] = float("nan")
    fp = T.FeaturePropagation(missing, num_iterations=5)(Data(x=fx, edge_index=ei))
    put("T.FeaturePropagation", fp.x)


@case
def karate_club() -> None:
    from torch_geometric.datasets import KarateClub

    ds = KarateClub()
    d = ds[0]
    put("karate.len", len(ds))
    put("karate.x", d.x)
    put("karate.edge_index", d.edge_index)
    put("karate.y", d.y)
    put("karate.train_mask", d.train_mask)
    put("karate.num_classes", ds.num_classes)


@case
def fake_dataset_shapes() -> None:
    from torch_geometric.datasets import FakeDataset

    # the values come from the side's own random stream: compare what does not
    ds = FakeDataset(num_graphs=3, avg_num_nodes=10, num_channels=4, num_classes=3)
    put("fake.len", len(ds))
    put("fake.num_features", ds.num_features)
    d = ds[0]
    put("fake.undirected", d.is_undirected())
    put("fake.x_dim", d.x.size(1))
    put("fake.no_self_loops", not d.has_self_loops())


CASES.run(f"{OUT}/pyg_{SIDE}")
WEIGHTS.save()
