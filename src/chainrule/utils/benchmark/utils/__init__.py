"""The modules behind ``chainrule.utils.benchmark``, laid out as PyTorch's
``torch.utils.benchmark.utils`` (``common``, ``timer``, ``compare``, ``fuzzer``)."""
