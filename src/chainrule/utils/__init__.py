"""``chainrule.utils``: PyTorch's ``torch.utils`` (hooks for now)."""
