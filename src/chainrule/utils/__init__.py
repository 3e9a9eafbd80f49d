"""``chainrule.utils``: PyTorch's ``torch.utils`` (hooks, data, checkpoint)."""


def __getattr__(name: str):
    if name == "checkpoint":  # (torch.utils.checkpoint without importing it: loaded on use)
        import importlib

        return importlib.import_module(__name__ + ".checkpoint")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
