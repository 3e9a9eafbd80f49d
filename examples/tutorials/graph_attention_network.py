"""The steps of PyTorch's ``examples/gat`` (Graph Attention Networks, written for
``import torch``): a ``GraphAttentionLayer`` with a shared weight ``W`` and an attention
vector ``a`` (``nn.Parameter`` with ``xavier_normal_``), several heads concatenated or
averaged, the attention logits from ``leaky_relu`` of the source and target parts
(broadcast ``+``), masked to the graph's edges with ``torch.where(adj_mat > 0, e,
-9e15)``, ``softmax`` and ``dropout`` over each node's neighbours; a two-layer ``GAT``
with ``elu`` and ``log_softmax``; the Cora loader's steps (features row-normalised, an
undirected adjacency with self loops built as a ``sparse_coo_tensor`` and made dense);
training with ``NLLLoss`` and ``Adam`` with weight decay on a train mask, and testing on
the held-out nodes. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the example: no Cora download, so the graph is 60 nodes in 3
communities with 20 binary features each (community-specific), a random edge list
mostly within communities; no argument parser; 30 epochs; losses and accuracies are
printed as floats."""

import torch
from torch import nn
from torch.nn import functional as F


class GraphAttentionLayer(nn.Module):
    """Graph Attention Layer (GAT) as described in the paper `"Graph Attention Networks"
    <https://arxiv.org/pdf/1710.10903.pdf>`: each node's new features are an
    attention-weighted mix of its neighbours' transformed features."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        n_heads: int,
        concat: bool = False,
        dropout: float = 0.4,
        leaky_relu_slope: float = 0.2,
    ):
        super().__init__()

        self.n_heads = n_heads  # Number of attention heads
        self.concat = concat  # whether to concatenate the final attention heads
        self.dropout = dropout  # Dropout rate

        if concat:  # concatenating the attention heads
            self.out_features = out_features  # Number of output features per node
            assert out_features % n_heads == 0  # Ensure that out_features is a multiple of n_heads
            self.n_hidden = out_features // n_heads
        else:  # averaging output over the attention heads (Used in the main paper)
            self.n_hidden = out_features

        #  A shared linear transformation, parametrized by a weight matrix W is applied to
        #  every node. Initialize the weight matrix W
        self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))

        # Initialize the attention weights a
        self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))

        self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)  # LeakyReLU activation function
        self.softmax = nn.Softmax(
            dim=1
        )  # softmax activation function to the attention coefficients

        self.reset_parameters()  # Reset the parameters

    def reset_parameters(self):
        """Reinitialize learnable parameters."""
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)

    def _get_attention_scores(self, h_transformed: torch.Tensor):
        """The attention logits of every pair of nodes, per head: the source part of
        ``a`` on the first node plus the target part on the second, through LeakyReLU."""

        source_scores = torch.matmul(h_transformed, self.a[:, : self.n_hidden, :])
        target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden :, :])

        # broadcast add
        # (n_heads, n_nodes, 1) + (n_heads, 1, n_nodes) = (n_heads, n_nodes, n_nodes)
        e = source_scores + target_scores.mT
        return self.leakyrelu(e)

    def forward(self, h: torch.Tensor, adj_mat: torch.Tensor):
        """The layer on node features ``h`` (n_nodes, in_features) and a dense adjacency
        ``adj_mat`` (n_nodes, n_nodes)."""
        n_nodes = h.shape[0]

        # Apply linear transformation to node feature -> W h
        # output shape (n_nodes, n_hidden * n_heads)
        h_transformed = torch.mm(h, self.W)
        h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)

        # splitting the heads by reshaping the tensor and putting heads dim first
        # output shape (n_heads, n_nodes, n_hidden)
        h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)

        # getting the attention scores
        # output shape (n_heads, n_nodes, n_nodes)
        e = self._get_attention_scores(h_transformed)

        # Set the attention score for non-existent edges to -9e15 (MASKING NON-EXISTENT EDGES)
        connectivity_mask = -9e16 * torch.ones_like(e)
        e = torch.where(adj_mat > 0, e, connectivity_mask)  # masked attention scores

        # attention coefficients are computed as a softmax over the rows
        # for each column j in the attention score matrix e
        attention = F.softmax(e, dim=-1)
        attention = F.dropout(attention, self.dropout, training=self.training)

        # final node embeddings are computed as a weighted average of the features of its
        # neighbors
        h_prime = torch.matmul(attention, h_transformed)

        # concatenating/averaging the attention heads
        # output shape (n_nodes, out_features)
        if self.concat:
            h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
        else:
            h_prime = h_prime.mean(dim=0)

        return h_prime


class GAT(nn.Module):
    """Graph Attention Network (GAT) as described in the paper `"Graph Attention Networks"
    <https://arxiv.org/pdf/1710.10903.pdf>`: two attention layers, the first with
    concatenated heads and ELU, the second averaging one head into class scores."""

    def __init__(
        self,
        in_features,
        n_hidden,
        n_heads,
        num_classes,
        concat=False,
        dropout=0.4,
        leaky_relu_slope=0.2,
    ):
        super().__init__()

        # Define the Graph Attention layers
        self.gat1 = GraphAttentionLayer(
            in_features=in_features,
            out_features=n_hidden,
            n_heads=n_heads,
            concat=concat,
            dropout=dropout,
            leaky_relu_slope=leaky_relu_slope,
        )

        self.gat2 = GraphAttentionLayer(
            in_features=n_hidden,
            out_features=num_classes,
            n_heads=1,
            concat=False,
            dropout=dropout,
            leaky_relu_slope=leaky_relu_slope,
        )

    def forward(self, input_tensor: torch.Tensor, adj_mat: torch.Tensor):
        """Class log-probabilities of each node."""

        # Apply the first Graph Attention layer
        x = self.gat1(input_tensor, adj_mat)
        x = F.elu(x)  # Apply ELU activation function to the output of the first layer

        # Apply the second Graph Attention layer
        x = self.gat2(x, adj_mat)

        return F.log_softmax(x, dim=1)  # Apply log softmax activation function


def load_graph(n_nodes=60, n_classes=3, n_features=20, seed=0):
    """A Cora-like graph: features, labels and a dense adjacency with self loops, built
    as the example's ``load_cora`` builds them."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n_nodes) % n_classes
    features = (torch.rand(n_nodes, n_features, generator=g) < 0.15).float()
    features[torch.arange(n_nodes), labels * 5 + torch.randint(0, 5, (n_nodes,), generator=g)] = 1
    features = features / features.sum(1, keepdim=True)  # row-normalise
    src = torch.randint(0, n_nodes, (150,), generator=g)
    same = torch.rand(150, generator=g) < 0.85
    other = (
        src + n_classes * torch.randint(1, n_nodes // n_classes, (150,), generator=g)
    ) % n_nodes
    dst = torch.where(same, other, torch.randint(0, n_nodes, (150,), generator=g))
    edges = torch.stack([src, dst])
    edges = torch.cat([edges, edges.flip(0), torch.arange(n_nodes).repeat(2, 1)], 1)
    adj_mat = torch.sparse_coo_tensor(edges, torch.ones(edges.shape[1]), (n_nodes, n_nodes))
    adj_mat = (adj_mat.coalesce().to_dense() > 0).float()
    return features, labels, adj_mat


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, print_every=10):
    start_t = 0.0
    model.train()
    optimizer.zero_grad()

    # Forward pass
    output = model(*input)
    loss = criterion(
        output[mask_train], target[mask_train]
    )  # Compute the loss using the training mask

    loss.backward()
    optimizer.step()

    # Evaluate the model performance on training and validation sets
    loss_train, acc_train = test(model, criterion, input, target, mask_train)

    if epoch % print_every == 0:
        # Print the training progress at specified intervals
        print(
            f"Epoch: {epoch:04d} ({start_t:.4f}s) loss_train: {loss_train:.4f} "
            f"acc_train: {acc_train + 0.0001:.4f}"
        )


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]

        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


torch.manual_seed(13)
device = torch.device("cpu")
features, labels, adj_mat = load_graph()
print(features.shape, labels.shape, adj_mat.shape, bool((adj_mat == adj_mat.T).all()))
print(int(adj_mat.diagonal().sum()), torch.allclose(features.sum(1), torch.ones(60)))
idx = torch.randperm(len(labels)).to(device)
idx_test, idx_val, idx_train = idx[:12], idx[12:24], idx[24:]

gat_net = GAT(
    in_features=features.shape[1],  # Number of input features per node
    n_hidden=16,  # Output size of the first Graph Attention Layer
    n_heads=4,  # Number of attention heads in the first Graph Attention Layer
    num_classes=int(labels.max()) + 1,  # Number of classes to predict for each node
    concat=True,  # Whether to concatinate attention heads
    dropout=0.6,  # Dropout rate
    leaky_relu_slope=0.2,  # Alpha (slope) of the leaky relu activation
).to(device)
print(gat_net)
print([(n, tuple(p.shape)) for n, p in gat_net.named_parameters()])

# a head's attention sums to one over each node's neighbours, and is zero elsewhere
layer = gat_net.gat1.eval()
h = torch.mm(features, layer.W).view(60, 4, 4).permute(1, 0, 2)
e = torch.where(adj_mat > 0, layer._get_attention_scores(h), -9e16 * torch.ones(4, 60, 60))
att = F.softmax(e, dim=-1)
print(torch.allclose(att.sum(-1), torch.ones(4, 60)), bool((att[:, adj_mat == 0] == 0).all()))

optimizer = torch.optim.Adam(gat_net.parameters(), lr=0.005, weight_decay=5e-4)
criterion = nn.NLLLoss()

for epoch in range(30):
    train_iter(
        epoch + 1,
        gat_net,
        optimizer,
        criterion,
        (features, adj_mat),
        labels,
        idx_train,
        10,
    )
loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
print(f"Test set results: loss {loss_test:.4f} accuracy {acc_test + 0.0001:.4f}")
