"""``chainrule.utils``: PyTorch's ``torch.utils`` (hooks, data, checkpoint)."""


def __getattr__(name: str):
    if name in ("checkpoint", "_pytree"):  # (torch.utils.<name> without importing it: on use)
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
