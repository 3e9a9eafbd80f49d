"""A graph convolutional network (Kipf and Welling's GCN) on sparse COO tensors, written for
``import torch``: a small graph of two communities, its normalized adjacency
D^-1/2 (A + I) D^-1/2 built as a sparse tensor, two GCN layers that propagate with
``torch.sparse.mm``, trained with Adam to label the nodes from four labelled ones; then
node features learned as an ``nn.Embedding(..., sparse=True)`` table (sparse gradients,
``optim.SparseAdam``). Runs unchanged with PyTorch and with ``chainrule run``."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# Two communities of 8 nodes each: dense inside, two edges between them.
n = 16
edges = [
    (i, j) for c in (0, 8) for i in range(c, c + 8) for j in range(i + 1, c + 8) if (i + j) % 3
]
edges += [(0, 8), (3, 12)]
rows = [i for i, j in edges] + [j for i, j in edges] + list(range(n))  # both ways, self loops
cols = [j for i, j in edges] + [i for i, j in edges] + list(range(n))
ones = torch.ones(len(rows))
adjacency = torch.sparse_coo_tensor(
    torch.tensor([rows, cols]), ones, (n, n), check_invariants=False
).coalesce()
degree = torch.sparse.sum(adjacency, dim=1).to_dense()
scale = degree.pow(-0.5)
index = adjacency.indices()
normalized = torch.sparse_coo_tensor(
    index, adjacency.values() * scale[index[0]] * scale[index[1]], (n, n), check_invariants=False
).coalesce()
print(normalized.layout, normalized.shape, normalized._nnz(), normalized.is_coalesced())
print(torch.sparse.sum(normalized).item() > 0)

labels = torch.tensor([0] * 8 + [1] * 8)
train = torch.tensor([0, 5, 9, 14])  # two labelled nodes per community
features = torch.eye(n)


class GCN(nn.Module):
    """H' = Â H W, twice, with a ReLU between (Â the normalized adjacency)."""

    def __init__(self, size_in: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.layer1 = nn.Linear(size_in, hidden)
        self.layer2 = nn.Linear(hidden, classes)

    def forward(self, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(torch.sparse.mm(a, self.layer1(x)))
        return torch.sparse.mm(a, self.layer2(x))


model = GCN(n, 8, 2)
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(60):
    optimizer.zero_grad()
    out = model(normalized, features)
    loss = F.cross_entropy(out[train], labels[train])
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
predicted = model(normalized, features).argmax(dim=1)
print("accuracy on all nodes:", (predicted == labels).float().mean().item() >= 0.75)

# The same GCN reading its node features from a learned table: the table's gradient is
# sparse (one row per node the loss reached), which SparseAdam updates row by row.
table = nn.Embedding(n, 8, sparse=True)
head = nn.Linear(8, 2)
sparse_opt = torch.optim.SparseAdam(table.parameters(), lr=0.05)
dense_opt = torch.optim.Adam(head.parameters(), lr=0.05)
for epoch in range(40):
    sparse_opt.zero_grad()
    dense_opt.zero_grad()
    hidden = F.relu(torch.sparse.mm(normalized, table(torch.arange(n))))
    out = torch.sparse.mm(normalized, head(hidden))
    loss = F.cross_entropy(out[train], labels[train])
    loss.backward()
    if epoch == 0:
        grad = table.weight.grad
        print(grad.layout, grad.shape, grad.sparse_dim(), grad.dense_dim())
    sparse_opt.step()
    dense_opt.step()
print("final loss below the first:", loss.item() < 0.7)
