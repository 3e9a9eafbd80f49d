"""``torchvision.models.optical_flow``: RAFT, which predicts the optical flow between two
images as a list of ever more refined flow fields."""

from .raft import *  # noqa: F403
