"""The steps of PyTorch's "Getting Started with Nested Tensors" tutorial (written for
``import torch``): nested tensors of sequences of different lengths built with
``torch.nested.nested_tensor`` (strided layout, then ``layout=torch.jagged``) and
``as_nested_tensor``; ``to_padded_tensor``, ``unbind``, ``offsets`` and the ragged
size ``j1`` in the shape; elementwise ops and ``nn.Linear`` applied to every sequence
at once; and a ``MultiHeadAttention`` module (packed query/key/value projections,
heads split with ``unflatten``/``transpose``, ``scaled_dot_product_attention``) run on a
jagged batch, checked against the same module on each sequence alone and on a padded
batch with an attention mask. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: small sizes and a fixed list of sequence lengths
(the tutorial draws them from a Zipf distribution); no CUDA and no timing comparison
or ``torch.compile``; on the CPU, SDPA on jagged inputs needs contiguous heads, which the
packed projection's ``chunk`` views are not, so key and value are passed as copies of
the query (the module then projects each with its slice of the packed weight); results are compared with ``allclose`` where the tutorial times
them."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
device = "cpu"

nt = torch.nested.nested_tensor(
    [torch.arange(12).reshape(2, 6), torch.arange(18).reshape(3, 6)],
    dtype=torch.float,
    device=device,
)
print(f"{nt=}")
padded_out_tensor = torch.nested.to_padded_tensor(nt, padding=0.0)
print(f"{padded_out_tensor=}")
print(nt.is_nested, nt.dim(), nt.size(0), [t.shape for t in nt.unbind()])

# the jagged layout: one ragged dimension, the sequences stored end to end
nt = torch.nested.nested_tensor(
    [torch.arange(12).reshape(2, 6), torch.arange(18).reshape(3, 6)],
    dtype=torch.float,
    layout=torch.jagged,
)
print(nt.shape, nt.layout, nt.offsets(), nt.values().shape)
print([t.tolist() for t in (nt * 2 + 1).unbind()][0])
print(torch.equal(nt.sin().unbind()[1], torch.arange(18.0).reshape(3, 6).sin()))
linear = nn.Linear(6, 4)
out = linear(nt)
print(out.shape, torch.allclose(out.unbind()[0], linear(torch.arange(12.0).reshape(2, 6))))
print(torch.nested.to_padded_tensor(out, -1.0).shape)
tensors = [torch.randn(3, 6), torch.randn(1, 6)]
view = torch.nested.as_nested_tensor(tensors, layout=torch.jagged)
print(view.shape, torch.equal(view.unbind()[1], tensors[1]))


class MultiHeadAttention(nn.Module):
    """Multi-head attention with packed projections when query, key and value are the
    same size: ``E_q``, ``E_k``, ``E_v`` the inputs' sizes, ``E_total`` the total
    embedding size over the ``nheads`` heads."""

    def __init__(
        self,
        E_q: int,
        E_k: int,
        E_v: int,
        E_total: int,
        nheads: int,
        dropout: float = 0.0,
        bias=True,
        device=None,
        dtype=None,
    ):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.nheads = nheads
        self.dropout = dropout
        self._qkv_same_embed_dim = E_q == E_k and E_q == E_v
        if self._qkv_same_embed_dim:
            self.packed_proj = nn.Linear(E_q, E_total * 3, bias=bias, **factory_kwargs)
        else:
            self.q_proj = nn.Linear(E_q, E_total, bias=bias, **factory_kwargs)
            self.k_proj = nn.Linear(E_k, E_total, bias=bias, **factory_kwargs)
            self.v_proj = nn.Linear(E_v, E_total, bias=bias, **factory_kwargs)
        E_out = E_q
        self.out_proj = nn.Linear(E_total, E_out, bias=bias, **factory_kwargs)
        assert E_total % nheads == 0, "Embedding dim is not divisible by nheads"
        self.E_head = E_total // nheads
        self.bias = bias

    def forward(self, query, key, value, attn_mask=None, is_causal=False):
        # Step 1. Apply input projection
        if self._qkv_same_embed_dim:
            if query is key and key is value:
                result = self.packed_proj(query)
                query, key, value = torch.chunk(result, 3, dim=-1)
            else:
                q_weight, k_weight, v_weight = torch.chunk(self.packed_proj.weight, 3, dim=0)
                if self.bias:
                    q_bias, k_bias, v_bias = torch.chunk(self.packed_proj.bias, 3, dim=0)
                else:
                    q_bias, k_bias, v_bias = None, None, None
                query, key, value = (
                    F.linear(query, q_weight, q_bias),
                    F.linear(key, k_weight, k_bias),
                    F.linear(value, v_weight, v_bias),
                )
        else:
            query = self.q_proj(query)
            key = self.k_proj(key)
            value = self.v_proj(value)

        # Step 2. Split heads and prepare for SDPA
        # reshape query, key, value to separate by head
        # (N, L_t, E_total) -> (N, L_t, nheads, E_head) -> (N, nheads, L_t, E_head)
        query = query.unflatten(-1, [self.nheads, self.E_head]).transpose(1, 2)
        key = key.unflatten(-1, [self.nheads, self.E_head]).transpose(1, 2)
        value = value.unflatten(-1, [self.nheads, self.E_head]).transpose(1, 2)

        # Step 3. Run SDPA
        # (N, nheads, L_t, E_head)
        attn_output = F.scaled_dot_product_attention(
            query, key, value, attn_mask=attn_mask, dropout_p=self.dropout, is_causal=is_causal
        )
        # (N, nheads, L_t, E_head) -> (N, L_t, nheads, E_head) -> (N, L_t, E_total)
        attn_output = attn_output.transpose(1, 2).flatten(-2)

        # Step 4. Apply output projection
        # (N, L_t, E_total) -> (N, L_t, E_out)
        attn_output = self.out_proj(attn_output)

        return attn_output


N, E_q, E_k, E_v, E_total, nheads = 4, 16, 16, 16, 32, 4
sentence_lengths = [5, 2, 7, 3]
sequences = [torch.randn(length, E_q) for length in sentence_lengths]
query = torch.nested.nested_tensor(sequences, layout=torch.jagged)
print(query.shape, query.offsets())

mha = MultiHeadAttention(E_q, E_k, E_v, E_total, nheads).eval()
with torch.no_grad():
    # on the CPU, SDPA on jagged inputs needs each head contiguous, which the packed
    # projection's chunks are not: key and value are given as copies of the query
    nested_out = mha(query, query.clone(), query.clone())
    print(nested_out.is_nested, nested_out.shape)
    one_by_one = [mha(s.unsqueeze(0), s.unsqueeze(0), s.unsqueeze(0))[0] for s in sequences]
    print(all(torch.allclose(a, b, atol=1e-5) for a, b in zip(nested_out.unbind(), one_by_one)))

    padded = torch.nested.to_padded_tensor(query, 0.0)
    lengths = torch.tensor(sentence_lengths)
    key_mask = torch.arange(padded.size(1))[None, :] < lengths[:, None]
    attn_mask = key_mask[:, None, None, :]
    padded_out = mha(padded, padded, padded, attn_mask=attn_mask)
    unpadded = [padded_out[i, :length] for i, length in enumerate(sentence_lengths)]
    print(
        padded_out.shape, all(torch.allclose(a, b, atol=1e-5) for a, b in zip(one_by_one, unpadded))
    )

    # key and value of other lengths than the query (cross attention)
    memory = torch.nested.nested_tensor(
        [torch.randn(length + 1, E_k) for length in sentence_lengths], layout=torch.jagged
    )
    cross = mha(query, memory, memory)
    print(cross.shape, [t.shape[0] for t in cross.unbind()] == sentence_lengths)

# gradients flow to the module's parameters through the jagged batch
out = mha.train()(query, query.clone(), query.clone())
out.values().pow(2).mean().backward()
print(mha.packed_proj.weight.grad.shape, bool(mha.packed_proj.weight.grad.abs().sum() > 0))
