"""``torch.distributed.algorithms.ddp_comm_hooks``: DDP's communication hooks. chainrule's
DDP averages gradients with its own all-reduce; it takes no hooks (see
post_localSGD_hook.py)."""
