"""torch.distributions in the ways models use it, on synthetic data (no download): a
variational autoencoder (``rsample`` through ``Normal``, ``Independent``, the KL to the
prior by ``kl_divergence``), REINFORCE on a three-armed bandit (``Categorical``'s
``log_prob`` times the reward), a Gaussian mixture fitted by maximum likelihood
(``MixtureSameFamily``), a positive parameter optimized unconstrained through
``biject_to``, and reparameterized gradients of ``Gamma``, ``Beta`` and ``Dirichlet``
samples. Runs unchanged with PyTorch and with ``chainrule run``; the checks hold in both."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import (
    Beta,
    Categorical,
    Dirichlet,
    Gamma,
    Independent,
    MixtureSameFamily,
    Normal,
    biject_to,
    constraints,
    kl_divergence,
)

torch.manual_seed(0)

# ----- a variational autoencoder on two blobs ------------------------------------------------


class VAE(nn.Module):
    def __init__(self, d=4, z=2, h=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.Tanh(), nn.Linear(h, 2 * z))
        self.dec = nn.Sequential(nn.Linear(z, h), nn.Tanh(), nn.Linear(h, d))

    def forward(self, x):
        loc, log_scale = self.enc(x).chunk(2, dim=-1)
        q = Independent(Normal(loc, log_scale.exp()), 1)
        z = q.rsample()
        prior = Independent(Normal(torch.zeros_like(loc), torch.ones_like(loc)), 1)
        recon = Independent(Normal(self.dec(z), 0.5), 1).log_prob(x)
        return -(recon - kl_divergence(q, prior)).mean()


data = torch.cat([torch.randn(64, 4) + 2, torch.randn(64, 4) - 2])
vae = VAE()
print(vae)
opt = torch.optim.Adam(vae.parameters(), lr=0.01)
first = None
for _ in range(150):
    opt.zero_grad()
    loss = vae(data)
    loss.backward()
    opt.step()
    first = loss.item() if first is None else first
print("negative ELBO fell:", loss.item() < first)
q = Independent(Normal(torch.zeros(3, 2), torch.ones(3, 2)), 1)
print(q, q.batch_shape, q.event_shape, q.rsample((5,)).shape)

# ----- REINFORCE on a bandit --------------------------------------------------------------------

payout = torch.tensor([0.2, 0.5, 0.9])
logits = torch.zeros(3, requires_grad=True)
policy_opt = torch.optim.SGD([logits], lr=0.5)
for _ in range(200):
    policy = Categorical(logits=logits)
    arm = policy.sample((16,))
    reward = torch.bernoulli(payout[arm])
    loss = -(policy.log_prob(arm) * (reward - reward.mean())).mean()
    policy_opt.zero_grad()
    loss.backward()
    policy_opt.step()
policy = Categorical(logits=logits)
print(policy, policy.probs.shape, "prefers the best arm:", policy.probs.argmax().item() == 2)

# ----- a Gaussian mixture by maximum likelihood -------------------------------------------------

points = torch.cat([torch.randn(200) * 0.5 - 3, torch.randn(200) * 0.5 + 3])
mix_logits = torch.zeros(2, requires_grad=True)
means = torch.tensor([-1.0, 1.0], requires_grad=True)
raw_scales = torch.zeros(2, requires_grad=True)
positive = biject_to(constraints.positive)
print(positive)
mix_opt = torch.optim.Adam([mix_logits, means, raw_scales], lr=0.05)
for _ in range(300):
    gmm = MixtureSameFamily(Categorical(logits=mix_logits), Normal(means, positive(raw_scales)))
    nll = -gmm.log_prob(points).mean()
    mix_opt.zero_grad()
    nll.backward()
    mix_opt.step()
print(gmm)
print(
    "means found:",
    torch.allclose(means.detach().sort().values, torch.tensor([-3.0, 3.0]), atol=0.3),
)
print("scales positive:", bool((positive(raw_scales) > 0).all()))

# ----- reparameterized gradients of Gamma, Beta and Dirichlet samples ---------------------------

alpha = torch.tensor([0.5, 2.0, 7.5], requires_grad=True)
x = Gamma(alpha, 1.0).rsample((4000,))
(g,) = torch.autograd.grad(x.mean(0).sum(), alpha)
print("d E[x]/d alpha of a Gamma(alpha, 1) is 1:", torch.allclose(g, torch.ones(3), atol=0.15))
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
y = Beta(a, b).rsample((4000,))
print(y.shape, y.requires_grad, bool(((y > 0) & (y < 1)).all()))
conc = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = Dirichlet(conc).rsample((8,))
print(w.shape, torch.allclose(w.sum(-1), torch.ones(8)))
F.mse_loss(w, torch.full_like(w, 1 / 3)).backward()
print(conc.grad.shape, conc.grad.dtype)
