"""The steps of PyTorch's ``examples/word_language_model`` (written for ``import
torch``): a ``Dictionary``/``Corpus`` that reads tokenized text files (``<eos>`` at each
line end); ``batchify``/``get_batch`` over the token stream; an ``RNNModel`` (LSTM, GRU
or a tanh RNN, with tied encoder/decoder weights) and a ``TransformerModel`` that
subclasses ``nn.Transformer`` (its own positional encoding and a ``log(tril(ones))``
mask); training by truncated backpropagation through time with ``repackage_hidden``
(``detach``), ``clip_grad_norm_`` and the example's hand-written SGD
(``p.data.add_(p.grad, alpha=-lr)``), evaluation by perplexity with lr annealing; the
whole model kept with ``torch.save(model, f)`` and read back, ``flatten_parameters()``;
and ``generate.py``'s sampling loop (``multinomial`` of ``exp(output / temperature)``).
Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the example: no argument parser and no WikiText-2, so the corpus is a
synthetic text in three files in a temporary directory; small models, ``bptt`` of 10,
two epochs per model, an initial lr of 2 for the Transformer (20 diverges); the ONNX export and ``--dry-run`` are left out; losses and
perplexities are printed as floats and the generated words as a count."""

import math
import os
import random
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


# data.py
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
    def __init__(self, path):
        self.dictionary = Dictionary()
        self.train = self.tokenize(os.path.join(path, "train.txt"))
        self.valid = self.tokenize(os.path.join(path, "valid.txt"))
        self.test = self.tokenize(os.path.join(path, "test.txt"))

    def tokenize(self, path):
        """Tokenizes a text file."""
        assert os.path.exists(path)
        # Add words to the dictionary
        with open(path, encoding="utf8") as f:
            for line in f:
                words = line.split() + ["<eos>"]
                for word in words:
                    self.dictionary.add_word(word)

        # Tokenize file content
        with open(path, encoding="utf8") as f:
            idss = []
            for line in f:
                words = line.split() + ["<eos>"]
                ids = []
                for word in words:
                    ids.append(self.dictionary.word2idx[word])
                idss.append(torch.tensor(ids).type(torch.int64))
            ids = torch.cat(idss)

        return ids


# model.py
class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            try:
                nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
            except KeyError as e:
                raise ValueError(
                    """An invalid option for `--model` was supplied,
                                 options are ['LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU']"""
                ) from e
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

        # Optionally tie weights as in:
        # "Using the Output Embedding to Improve Language Models" (Press & Wolf 2016)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight

        self.init_weights()

        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (
                weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid),
            )
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)

        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    """Container module with an encoder, a recurrent or transformer module, and a decoder."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__(
            d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers
        )
        self.model_type = "Transformer"
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)

        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None

        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


# A synthetic corpus in three files.
rng = random.Random(0)
words = [f"w{i}" for i in range(30)]
tmp = tempfile.TemporaryDirectory()
for name, lines in (("train.txt", 60), ("valid.txt", 16), ("test.txt", 16)):
    with open(os.path.join(tmp.name, name), "w", encoding="utf8") as f:
        for _ in range(lines):
            start = rng.randrange(30)
            f.write(" ".join(words[(start + k) % 30] for k in range(rng.randint(4, 10))) + "\n")

# main.py
torch.manual_seed(1111)
device = torch.device("cpu")
corpus = Corpus(tmp.name)
print(len(corpus.dictionary), corpus.train.shape, corpus.valid.shape, corpus.test.shape)
print(corpus.dictionary.idx2word[:3], corpus.dictionary.word2idx["<eos>"])


def batchify(data, bsz):
    # Work out how cleanly we can divide the dataset into bsz parts.
    nbatch = data.size(0) // bsz
    # Trim off any extra elements that wouldn't cleanly fit (remainders).
    data = data.narrow(0, 0, nbatch * bsz)
    # Evenly divide the data across the bsz batches.
    data = data.view(bsz, -1).t().contiguous()
    return data.to(device)


eval_batch_size = 5
batch_size = 10
train_data = batchify(corpus.train, batch_size)
val_data = batchify(corpus.valid, eval_batch_size)
test_data = batchify(corpus.test, eval_batch_size)
print(train_data.shape, val_data.shape, test_data.shape)

bptt = 10
clip = 0.25
log_interval = 3
ntokens = len(corpus.dictionary)


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""

    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target


def evaluate(data_source):
    # Turn on evaluation mode which disables dropout.
    model.eval()
    total_loss = 0.0
    if kind != "Transformer":
        hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            if kind == "Transformer":
                output = model(data)
                output = output.view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train():
    # Turn on training mode which enables dropout.
    model.train()
    total_loss = 0.0
    start_time = time.time()
    if kind != "Transformer":
        hidden = model.init_hidden(batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        # If we didn't, the model would try backpropagating all the way to start of the dataset.
        model.zero_grad()
        if kind == "Transformer":
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()

        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)

        total_loss += loss.item()

        if batch % log_interval == 0 and batch > 0:
            cur_loss = total_loss / log_interval
            elapsed = time.time() - start_time
            print(
                f"| epoch {epoch:3d} | {batch:5d}/{len(train_data) // bptt:5d} batches | "
                f"lr {lr:02.2f} | ms/batch {elapsed * 1000 / log_interval:5.2f} | "
                f"loss {cur_loss:5.2f} | ppl {math.exp(cur_loss):8.2f}"
            )
            total_loss = 0
            start_time = time.time()


criterion = nn.NLLLoss()
for kind in ("LSTM", "GRU", "RNN_TANH", "Transformer"):
    if kind == "Transformer":
        model = TransformerModel(ntokens, 16, 2, 32, 2, 0.2).to(device)
    else:
        model = RNNModel(kind, ntokens, 16, 16, 2, 0.2, tie_weights=kind == "RNN_TANH").to(device)
    print(kind, sum(p.numel() for p in model.parameters()))
    if kind == "RNN_TANH":
        print(model, model.decoder.weight is model.encoder.weight)
    lr = 20 if kind != "Transformer" else 2
    best_val_loss = None
    save = os.path.join(tmp.name, "model.pt")
    for epoch in range(1, 3):
        epoch_start_time = time.time()
        train()
        val_loss = evaluate(val_data)
        print("-" * 89)
        print(
            f"| end of epoch {epoch:3d} | time: {time.time() - epoch_start_time:5.2f}s | "
            f"valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}"
        )
        print("-" * 89)
        # Save the model if the validation loss is the best we've seen so far.
        if not best_val_loss or val_loss < best_val_loss:
            with open(save, "wb") as f:
                torch.save(model, f)
            best_val_loss = val_loss
        else:
            # Anneal the learning rate if no improvement has been seen in the validation dataset.
            lr /= 4.0

    # Load the best saved model.
    with open(save, "rb") as f:
        model = torch.load(f, weights_only=False)
        # after load the rnn params are not a continuous chunk of memory
        # this makes them a continuous chunk, and will speed up forward pass
        # Currently, only rnn model supports flatten_parameters function.
        if kind in ["RNN_TANH", "RNN_RELU", "LSTM", "GRU"]:
            model.rnn.flatten_parameters()
    print(type(model).__name__, evaluate(val_data) == best_val_loss)

    # Run on test data.
    test_loss = evaluate(test_data)
    print("=" * 89)
    print(f"| End of training | test loss {test_loss:5.2f} | test ppl {math.exp(test_loss):8.2f}")
    print("=" * 89)

# generate.py: the Transformer just trained (saved last), and a fresh LSTM model


def generate(model, n_words=20, temperature=1.0):
    model.eval()
    is_transformer_model = hasattr(model, "model_type") and model.model_type == "Transformer"
    if not is_transformer_model:
        hidden = model.init_hidden(1)
    input = torch.randint(ntokens, (1, 1), dtype=torch.long).to(device)
    generated = []
    with torch.no_grad():  # no tracking history
        for i in range(n_words):
            if is_transformer_model:
                output = model(input, False)
                word_weights = output[-1].squeeze().div(temperature).exp().cpu()
                word_idx = torch.multinomial(word_weights, 1)[0]
                word_tensor = torch.Tensor([[word_idx]]).long().to(device)
                input = torch.cat([input, word_tensor], 0)
            else:
                output, hidden = model(input, hidden)
                word_weights = output.squeeze().div(temperature).exp().cpu()
                word_idx = torch.multinomial(word_weights, 1)[0]
                input.fill_(word_idx)
            word = corpus.dictionary.idx2word[word_idx]
            generated.append(word + ("\n" if i % 20 == 19 else " "))
    return generated, input


model = torch.load(os.path.join(tmp.name, "model.pt"), weights_only=False)
generated, input = generate(model)
print(len(generated), all(w.strip() in corpus.dictionary.word2idx for w in generated))
print(input.shape, input.dtype)
generated, input = generate(RNNModel("LSTM", ntokens, 16, 16, 2, 0.2))
print(len(generated), all(w.strip() in corpus.dictionary.word2idx for w in generated))
print(input.shape, input.dtype)
tmp.cleanup()
