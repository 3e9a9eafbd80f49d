"""The steps of PyTorch's ``examples/time_sequence_prediction`` (written for ``import
torch``): sine waves with random phase made with NumPy and kept with ``torch.save``;
a model of two stacked ``nn.LSTMCell`` and a ``Linear`` head, in double precision
(``.double()``), that reads a sequence step by step (``split(1, dim=1)``) and then
predicts ``future`` steps from its own output; trained with ``optim.LBFGS`` and a
closure that prints its loss; after each step the test loss and a prediction into the
future under ``torch.no_grad``. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the example: shorter and fewer waves (20 of length 120, where the
example has 100 of length 1000), 24 hidden units, 3 LBFGS steps of at most 4 iterations
with the stopping tolerances at 0 (so the closure runs the same number of times with
either library's random weights), a 60-step future, no plots (the shapes are printed),
and ``torch.load`` of the NumPy array with ``weights_only=False`` (PyTorch 2.6's default
is ``True``, which refuses NumPy arrays)."""

import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

# generate_sine_wave.py
np.random.seed(2)
T = 20
L = 120
N = 20
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "traindata.pt")
torch.save(data, open(path, "wb"))

HIDDEN = 24


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


# train.py
steps = 3
np.random.seed(0)
torch.manual_seed(0)
data = torch.load(path, weights_only=False)
print(type(data).__name__, data.shape, data.dtype)
input = torch.from_numpy(data[3:, :-1])
target = torch.from_numpy(data[3:, 1:])
test_input = torch.from_numpy(data[:3, :-1])
test_target = torch.from_numpy(data[:3, 1:])
seq = Sequence()
seq.double()
print(seq)
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=4, tolerance_grad=0, tolerance_change=0)
for i in range(steps):
    print("STEP: ", i)

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print("loss:", loss.item())
        loss.backward()
        return loss

    optimizer.step(closure)
    with torch.no_grad():
        future = 60
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print("test loss:", loss.item())
        y = pred.detach().numpy()
    print(y.shape, y.dtype, pred.requires_grad)

state = optimizer.state_dict()
print(sorted(state["state"][0]), state["state"][0]["n_iter"], state["state"][0]["func_evals"])
print(len(state["state"][0]["old_dirs"]), state["param_groups"][0]["history_size"])
tmp.cleanup()
