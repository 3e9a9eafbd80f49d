"""The steps of PyTorch's "(beta) Dynamic Quantization on an LSTM Word Language Model"
tutorial (written for ``import torch``): an LSTM word language model (``Embedding``,
``nn.LSTM``, ``Linear`` decoder, ``init_hidden``); evaluation by the average
cross-entropy with ``repackage_hidden``; the model quantized with
``torch.ao.quantization.quantize_dynamic({nn.LSTM, nn.Linear}, dtype=torch.qint8)`` into
``DynamicQuantizedLSTM`` and ``DynamicQuantizedLinear`` layers; the sizes of the two
models' saved state dicts compared (``print_size_of_model``); and both evaluated and
timed. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no pretrained weights and no WikiText-2, so the model is
trained for a few steps on a synthetic corpus (a cycle of 40 words), the corpus is
built in memory, the model is small, the temporary file goes to a temporary directory;
sizes, losses and timings are printed as floats, and the quantized model's loss is
checked to be close to the float model's."""

import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.quantization

torch.manual_seed(0)


class LSTMModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

        self.init_weights()

        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        self.encoder.weight.data.uniform_(-initrange, initrange)
        self.decoder.bias.data.zero_()
        self.decoder.weight.data.uniform_(-initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        return decoded, hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (
            weight.new_zeros(self.nlayers, bsz, self.nhid),
            weight.new_zeros(self.nlayers, bsz, self.nhid),
        )


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    def __init__(self, lines):
        self.dictionary = Dictionary()
        self.train = self.tokenize(lines[:40])
        self.valid = self.tokenize(lines[40:50])
        self.test = self.tokenize(lines[50:])

    def tokenize(self, lines):
        ids = []
        for line in lines:
            for word in line.split() + ["<eos>"]:
                ids.append(self.dictionary.add_word(word))
        return torch.tensor(ids, dtype=torch.int64)


words = [f"w{i}" for i in range(40)]
lines = [" ".join(words[(3 * n + k) % 40] for k in range(8)) for n in range(60)]
corpus = Corpus(lines)
ntokens = len(corpus.dictionary)
print(ntokens, corpus.train.shape, corpus.test.shape)

model = LSTMModel(ntoken=ntokens, ninp=32, nhid=64, nlayers=2)
print(model)

bptt = 12


def batchify(data, bsz):
    # Work out how cleanly we can divide the dataset into bsz parts.
    nbatch = data.size(0) // bsz
    # Trim off any extra elements that wouldn't cleanly fit (remainders).
    data = data.narrow(0, 0, nbatch * bsz)
    # Evenly divide the data across the bsz batches.
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].reshape(-1)
    return data, target


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""

    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


# A few training steps in place of the tutorial's pretrained weights.
train_data = batchify(corpus.train, 4)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model.train()
hidden = model.init_hidden(4)
for i in range(0, train_data.size(0) - 1, bptt):
    data, targets = get_batch(train_data, i)
    hidden = repackage_hidden(hidden)
    output, hidden = model(data, hidden)
    loss = F.cross_entropy(output.view(-1, ntokens), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("trained", loss.item())

test_data = batchify(corpus.test, 1)


def evaluate(model_, data_source):
    # Turn on evaluation mode which disables dropout.
    model_.eval()
    total_loss = 0.0
    hidden = model_.init_hidden(1)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model_(data, hidden)
            hidden = repackage_hidden(hidden)
            output_flat = output.view(-1, ntokens)
            total_loss += len(data) * F.cross_entropy(output_flat, targets).item()
    return total_loss / (len(data_source) - 1)


quantized_model = torch.quantization.quantize_dynamic(
    model, {nn.LSTM, nn.Linear}, dtype=torch.qint8
)
print(quantized_model)

tmp = tempfile.TemporaryDirectory()


def print_size_of_model(model):
    path = os.path.join(tmp.name, "temp.p")
    torch.save(model.state_dict(), path)
    size = os.path.getsize(path) / 1e6
    print("Size (MB):", size)
    os.remove(path)
    return size


float_size = print_size_of_model(model)
quantized_size = print_size_of_model(quantized_model)
print(quantized_size < float_size)

torch.set_num_threads(1)


def time_model_evaluation(model, test_data):
    s = time.time()
    loss = evaluate(model, test_data)
    elapsed = time.time() - s
    print(f"""loss: {loss:.3f}\nelapsed time (seconds): {elapsed:.1f}""")
    return loss


float_loss = time_model_evaluation(model, test_data)
quantized_loss = time_model_evaluation(quantized_model, test_data)
print(abs(float_loss - quantized_loss) < 0.1)
print(type(quantized_model.rnn).__name__, type(quantized_model.decoder).__name__)
print(quantized_model.decoder.weight().dtype, quantized_model.decoder.weight().qscheme())
tmp.cleanup()
