"""``torch.utils.model_zoo``: ``load_url``, the name PyTorch keeps for
:func:`chainrule.hub.load_state_dict_from_url`."""

from ..hub import load_state_dict_from_url as load_url
from ..hub import tqdm

__all__ = ["load_url", "tqdm"]
