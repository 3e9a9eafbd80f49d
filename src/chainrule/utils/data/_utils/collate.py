"""``torch.utils.data._utils.collate``: the DataLoader's default collate functions."""

from .._collate import default_collate, default_convert

__all__ = ["default_collate", "default_convert"]
