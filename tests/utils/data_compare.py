"""Compare nested batches of chainrule and torch structurally (types, values, dtypes)."""

import numpy as np
import torch

import chainrule


def same_batch(ours, theirs):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, chainrule.Tensor), type(ours)
        assert str(ours.dtype) == str(theirs.dtype)
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        for k in theirs:
            same_batch(ours[k], theirs[k])
    elif isinstance(theirs, (list, tuple)):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            same_batch(a, b)
    else:
        assert type(ours) is type(theirs) and ours == theirs
