"""``chainrule.utils``: PyTorch's ``torch.utils`` (hooks, data)."""
