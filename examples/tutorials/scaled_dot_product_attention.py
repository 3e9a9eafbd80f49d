"""The steps of PyTorch's "Implementing High-Performance Transformers with Scaled Dot
Product Attention (SDPA)" tutorial (written for ``import torch``):
``F.scaled_dot_product_attention``; the backends chosen explicitly with
``torch.nn.attention.sdpa_kernel`` (math, flash, memory-efficient: the last is not
available on the CPU and raises), timed with ``torch.utils.benchmark.Timer``; a
``CausalSelfAttention`` module (one ``Linear`` for query, key and value, ``chunk``,
heads moved to the batch dims, causal attention with dropout while training); and the
attention biases ``causal_upper_left`` / ``causal_lower_right`` of
``torch.nn.attention.bias`` (``CausalBias`` tensors), compared with ``is_causal=True``.
Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no CUDA, so float32 and small sizes (a batch of 2, 4
heads, sequences of 64); the timings are printed as floats from one ``timeit`` run
rather than ``blocked_autorange``; the NestedTensor batches and ``torch.compile`` parts
are left out; the outputs of the backends are compared with ``allclose`` where the
tutorial only times them."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.benchmark as benchmark
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.bias import causal_lower_right, causal_upper_left

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"

# Example Usage:
query, key, value = (
    torch.randn(2, 3, 8, device=device),
    torch.randn(2, 3, 8, device=device),
    torch.randn(2, 3, 8, device=device),
)
out = F.scaled_dot_product_attention(query, key, value)
print(out.shape)
manual = torch.softmax(query @ key.transpose(-2, -1) / 8**0.5, dim=-1) @ value
print(torch.allclose(out, manual, atol=1e-6))


def benchmark_torch_function_in_microseconds(f, *args, **kwargs):
    t0 = benchmark.Timer(
        stmt="f(*args, **kwargs)", globals={"args": args, "kwargs": kwargs, "f": f}
    )
    return t0.timeit(3).mean * 1e6


batch_size = 2
max_sequence_len = 64
num_heads = 4
embed_dimension = 16
dtype = torch.float32

query = torch.rand(
    batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype
)
key = torch.rand(
    batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype
)
value = torch.rand(
    batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype
)

default_time = benchmark_torch_function_in_microseconds(
    F.scaled_dot_product_attention, query, key, value
)
print(f"The default implementation runs in {default_time:.3f} microseconds")
default_out = F.scaled_dot_product_attention(query, key, value)

with sdpa_kernel(SDPBackend.MATH):
    math_time = benchmark_torch_function_in_microseconds(
        F.scaled_dot_product_attention, query, key, value
    )
    print(f"The math implementation runs in {math_time:.3f} microseconds")
    print(torch.allclose(F.scaled_dot_product_attention(query, key, value), default_out, atol=1e-6))

with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    try:
        flash_time = benchmark_torch_function_in_microseconds(
            F.scaled_dot_product_attention, query, key, value
        )
        print(f"The flash attention implementation runs in {flash_time:.3f} microseconds")
        flash_out = F.scaled_dot_product_attention(query, key, value)
        print(torch.allclose(flash_out, default_out, atol=1e-6))
    except RuntimeError:
        print("FlashAttention is not supported. See warnings for reasons.")

with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
    try:
        efficient_time = benchmark_torch_function_in_microseconds(
            F.scaled_dot_product_attention, query, key, value
        )
        print(f"The memory efficient implementation runs in {efficient_time:.3f} microseconds")
    except RuntimeError:
        print("EfficientAttention is not supported. See warnings for reasons.")

with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
    print(torch.allclose(F.scaled_dot_product_attention(query, key, value), default_out, atol=1e-6))


class CausalSelfAttention(nn.Module):
    def __init__(
        self,
        num_heads: int,
        embed_dimension: int,
        bias: bool = False,
        is_causal: bool = False,
        dropout: float = 0.0,
    ):
        super().__init__()
        assert embed_dimension % num_heads == 0
        # key, query, value projections for all heads, but in a batch
        self.c_attn = nn.Linear(embed_dimension, 3 * embed_dimension, bias=bias)
        # output projection
        self.c_proj = nn.Linear(embed_dimension, embed_dimension, bias=bias)
        # regularization
        self.dropout = dropout
        self.resid_dropout = nn.Dropout(dropout)
        self.num_heads = num_heads
        self.embed_dimension = embed_dimension
        # Perform causal masking
        self.is_causal = is_causal

    def forward(self, x):
        # calculate query, key, values for all heads in batch and move head forward
        # to be the batch dim
        query_projected = self.c_attn(x)

        batch_size = query_projected.size(0)
        embed_dim = query_projected.size(2)
        head_dim = embed_dim // (self.num_heads * 3)

        query, key, value = query_projected.chunk(3, -1)
        query = query.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        key = key.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        value = value.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)

        if self.training:
            dropout = self.dropout
            is_causal = self.is_causal
        else:
            dropout = 0.0
            is_causal = False

        y = F.scaled_dot_product_attention(
            query, key, value, attn_mask=None, dropout_p=dropout, is_causal=is_causal
        )
        y = y.transpose(1, 2).contiguous().view(batch_size, -1, self.num_heads * head_dim)

        y = self.resid_dropout(self.c_proj(y))
        return y


num_heads = 4
heads_per_dim = 8
embed_dimension = num_heads * heads_per_dim
model = (
    CausalSelfAttention(
        num_heads=num_heads,
        embed_dimension=embed_dimension,
        bias=False,
        is_causal=True,
        dropout=0.1,
    )
    .to(device)
    .to(dtype)
    .eval()
)
print(model)

x = torch.randn(2, 10, embed_dimension, device=device, dtype=dtype)
y = model(x)
print(y.shape, y.dtype)
model.train()
model.dropout = 0.0
model.resid_dropout.p = 0.0
causal = model(x)
# causal attention: the first token's output depends on the first token only
x2 = x.clone()
x2[:, 1:] = torch.randn(2, 9, embed_dimension)
print(torch.allclose(model(x2)[:, 0], causal[:, 0], atol=1e-6))
causal.sum().backward()
print([tuple(p.grad.shape) for p in model.parameters()])

batch_size = 4
sequence_length_q = 2
sequence_length_kv = 10
num_heads = 4
embed_dimension = 8
query = torch.rand(
    batch_size, num_heads, sequence_length_q, embed_dimension, device=device, dtype=dtype
)
key = torch.rand(
    batch_size, num_heads, sequence_length_kv, embed_dimension, device=device, dtype=dtype
)
value = torch.rand(
    batch_size, num_heads, sequence_length_kv, embed_dimension, device=device, dtype=dtype
)
upper_left_bias = causal_upper_left(sequence_length_q, sequence_length_kv)
lower_right_bias = causal_lower_right(sequence_length_q, sequence_length_kv)

print(type(upper_left_bias))
print(type(lower_right_bias))

assert type(upper_left_bias) is type(lower_right_bias)
assert issubclass(type(upper_left_bias), torch.Tensor)

print(upper_left_bias)
print(lower_right_bias)
print(upper_left_bias.shape, upper_left_bias.variant, lower_right_bias.variant)
print(upper_left_bias._materialize())
print(lower_right_bias._materialize())

out_upper_left = F.scaled_dot_product_attention(query, key, value, upper_left_bias)
out_lower_right = F.scaled_dot_product_attention(query, key, value, lower_right_bias)
out_is_causal = F.scaled_dot_product_attention(query, key, value, is_causal=True)

print(torch.allclose(out_upper_left, out_is_causal))
print(not torch.allclose(out_upper_left, out_lower_right))
mask = lower_right_bias._materialize()
out_mask = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
print(torch.allclose(out_lower_right, out_mask, atol=1e-6))
