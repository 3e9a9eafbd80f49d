"""``torch.distributed._composable``: the composable APIs' home (``fsdp`` only)."""
