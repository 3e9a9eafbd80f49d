"""The tutorials' training loops give PyTorch's losses from identical initial weights.

``tests/test_tutorials.py`` runs the scripts in ``examples/tutorials/`` under both
libraries with floats masked (their random initial weights differ). Here the models and
loops of the scripts that train with ``torch.optim`` start from PyTorch's initial weights,
copied into chainrule, and every loss is compared (float32, rtol 1e-5): the polynomial fit
with RMSprop, the N-gram language model with SGD, and the LSTM part-of-speech tagger
with SGD."""

from __future__ import annotations

import math

import numpy as np
import torch

import chainrule


def _copy_weights(c_model, t_model):
    c_model.load_state_dict(
        {k: chainrule.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()}
    )


def _assert_same_losses(c_losses, t_losses, rtol=1e-5):
    np.testing.assert_allclose(c_losses, t_losses, rtol=rtol, atol=1e-6)
    assert t_losses[-1] < t_losses[0]


def test_polynomial_fit_with_rmsprop():
    def run(lib, model):
        x = lib.linspace(-math.pi, math.pi, 2000)
        y = lib.sin(x)
        xx = x.unsqueeze(-1).pow(lib.tensor([1, 2, 3]))
        loss_fn = lib.nn.MSELoss(reduction="sum")
        optimizer = lib.optim.RMSprop(model.parameters(), lr=1e-3)
        losses = []
        for _ in range(300):
            loss = loss_fn(model(xx), y)
            losses.append(loss.item())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return losses

    def net(lib):
        return lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1))

    torch.manual_seed(0)
    t_model, c_model = net(torch), net(chainrule)
    _copy_weights(c_model, t_model)
    _assert_same_losses(run(chainrule, c_model), run(torch, t_model), rtol=1e-4)


SENTENCE = """When forty winters shall besiege thy brow,
And dig deep trenches in thy beauty's field,
Thy youth's proud livery so gazed on now,
Will be a totter'd weed of small worth held:""".split()


def test_ngram_language_model_with_sgd():
    ngrams = [([SENTENCE[i - 1], SENTENCE[i - 2]], SENTENCE[i]) for i in range(2, len(SENTENCE))]
    ix = {w: i for i, w in enumerate(sorted(set(SENTENCE)))}

    def net(lib):
        nn = lib.nn
        return nn.ModuleDict(
            {
                "embeddings": nn.Embedding(len(ix), 10),
                "linear1": nn.Linear(20, 128),
                "linear2": nn.Linear(128, len(ix)),
            }
        )

    def run(lib, m):
        F = lib.nn.functional
        optimizer = lib.optim.SGD(m.parameters(), lr=0.01)
        losses = []
        for _ in range(3):
            for context, target in ngrams:
                m.zero_grad()
                embeds = m["embeddings"](lib.tensor([ix[w] for w in context])).view((1, -1))
                log_probs = F.log_softmax(m["linear2"](F.relu(m["linear1"](embeds))), dim=1)
                loss = F.nll_loss(log_probs, lib.tensor([ix[target]]))
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
        return losses

    torch.manual_seed(1)
    t_model, c_model = net(torch), net(chainrule)
    _copy_weights(c_model, t_model)
    c_losses, t_losses = run(chainrule, c_model), run(torch, t_model)
    _assert_same_losses(c_losses, t_losses)
    assert sum(t_losses[-len(ngrams) :]) < sum(t_losses[: len(ngrams)])


def test_lstm_tagger_with_sgd():
    data = [
        ("The dog ate the apple".split(), [0, 1, 2, 0, 1]),
        ("Everybody read that book".split(), [1, 2, 0, 1]),
    ]
    ix = {}
    for sentence, _ in data:
        for w in sentence:
            ix.setdefault(w, len(ix))

    def net(lib):
        nn = lib.nn
        return nn.ModuleDict(
            {"embed": nn.Embedding(len(ix), 6), "lstm": nn.LSTM(6, 6), "tag": nn.Linear(6, 3)}
        )

    def run(lib, m):
        optimizer = lib.optim.SGD(m.parameters(), lr=0.1)
        losses = []
        for _ in range(30):
            for sentence, tags in data:
                m.zero_grad()
                embeds = m["embed"](lib.tensor([ix[w] for w in sentence]))
                out, _ = m["lstm"](embeds.view(len(sentence), 1, -1))
                scores = lib.nn.functional.log_softmax(m["tag"](out.view(len(sentence), -1)), dim=1)
                loss = lib.nn.functional.nll_loss(scores, lib.tensor(tags))
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
        return losses

    torch.manual_seed(1)
    t_model, c_model = net(torch), net(chainrule)
    _copy_weights(c_model, t_model)
    _assert_same_losses(run(chainrule, c_model), run(torch, t_model))
