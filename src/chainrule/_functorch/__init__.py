"""``torch._functorch``: the private modules of PyTorch's ``torch.func`` that libraries
import by name (``torch._functorch.vmap``'s pytree and batch-dimension helpers)."""
