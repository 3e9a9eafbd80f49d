"""The steps of PyTorch's "Language Modeling with ``nn.Transformer``" tutorial (written for
``import torch`` and torchtext): a word-level language model of ``nn.Embedding`` scaled by
``sqrt(d_model)``, a sinusoidal ``PositionalEncoding`` (a registered buffer), a
``TransformerEncoder`` of ``TransformerEncoderLayer`` blocks under the causal mask of
``nn.Transformer.generate_square_subsequent_mask`` and a ``Linear`` decoder; the token
stream cut into columns by ``batchify`` and into ``bptt``-long chunks by ``get_batch``;
training with ``CrossEntropyLoss``, ``SGD`` with a ``StepLR`` schedule and
``clip_grad_norm_``; evaluation with perplexity; the best model kept with
``torch.save``/``torch.load`` of its ``state_dict`` in a temporary directory. Runs
unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no WikiText-2 download and no torchtext, so the corpus
is a synthetic text whose words follow a fixed cycle with noise, tokenized by
``str.split`` and numbered by a small vocabulary built with a ``dict``; a smaller
model, shorter ``bptt`` and a few batches per epoch, so it runs in seconds; losses are
printed as floats and the timings are left out."""

import math
import os
import random
import tempfile

import torch
from torch import Tensor, nn
from torch.nn import TransformerEncoder, TransformerEncoderLayer

torch.manual_seed(0)
device = torch.device("cpu")


class TransformerModel(nn.Module):
    def __init__(
        self,
        ntoken: int,
        d_model: int,
        nhead: int,
        d_hid: int,
        nlayers: int,
        dropout: float = 0.5,
    ):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src)).to(device)
        output = self.transformer_encoder(src, src_mask)
        output = self.linear(output)
        return output


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)

        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


# A synthetic corpus in place of WikiText-2: words in a cycle, with some noise.
rng = random.Random(0)
words = [f"w{i}" for i in range(40)] + ["the", "of", "<unk>"]


def make_lines(n_lines):
    lines = []
    position = 0
    for _ in range(n_lines):
        line = []
        for _ in range(12):
            if rng.random() < 0.1:
                line.append(rng.choice(words))
            else:
                line.append(words[position % 40])
            position += 1
        lines.append(" ".join(line))
    return lines


train_iter, val_iter, test_iter = make_lines(120), make_lines(30), make_lines(30)
tokenizer = str.split
vocab = {"<unk>": 0}
for line in train_iter:
    for token in tokenizer(line):
        vocab.setdefault(token, len(vocab))


def data_process(raw_text_iter):
    data = [
        torch.tensor([vocab.get(token, 0) for token in tokenizer(item)], dtype=torch.long)
        for item in raw_text_iter
    ]
    return torch.cat(tuple(filter(lambda t: t.numel() > 0, data)))


train_data = data_process(train_iter)
val_data = data_process(val_iter)
test_data = data_process(test_iter)
print(train_data.shape, train_data.dtype, len(vocab))


def batchify(data: Tensor, bsz: int) -> Tensor:
    seq_len = data.size(0) // bsz
    data = data[: seq_len * bsz]
    data = data.view(bsz, seq_len).t().contiguous()
    return data.to(device)


batch_size = 20
eval_batch_size = 10
train_data = batchify(train_data, batch_size)
val_data = batchify(val_data, eval_batch_size)
test_data = batchify(test_data, eval_batch_size)
print(train_data.shape, val_data.shape, test_data.shape)

bptt = 12


def get_batch(source: Tensor, i: int):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].reshape(-1)
    return data, target


data, targets = get_batch(train_data, 0)
print(data.shape, targets.shape, torch.equal(targets[:batch_size], train_data[1]))

ntokens = len(vocab)
emsize = 32
d_hid = 32
nlayers = 2
nhead = 2
dropout = 0.2
model = TransformerModel(ntokens, emsize, nhead, d_hid, nlayers, dropout).to(device)
print(model)
print(sum(p.numel() for p in model.parameters()))
mask = nn.Transformer.generate_square_subsequent_mask(4)
print(mask)

criterion = nn.CrossEntropyLoss()
lr = 5.0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)


def train(model: nn.Module) -> None:
    model.train()
    total_loss = 0.0
    log_interval = 2
    num_batches = len(train_data) // bptt
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        output_flat = output.view(-1, ntokens)
        loss = criterion(output_flat, targets)

        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()

        total_loss += loss.item()
        if batch % log_interval == 0 and batch > 0:
            lr = scheduler.get_last_lr()[0]
            cur_loss = total_loss / log_interval
            ppl = math.exp(cur_loss)
            print(
                f"| epoch {epoch:3d} | {batch:5d}/{num_batches:5d} batches | "
                f"lr {lr:02.2f} | loss {cur_loss:5.2f} | ppl {ppl:8.2f}"
            )
            total_loss = 0


def evaluate(model: nn.Module, eval_data: Tensor) -> float:
    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, eval_data.size(0) - 1, bptt):
            data, targets = get_batch(eval_data, i)
            seq_len = data.size(0)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            total_loss += seq_len * criterion(output_flat, targets).item()
    return total_loss / (len(eval_data) - 1)


best_val_loss = float("inf")
epochs = 2

with tempfile.TemporaryDirectory() as tempdir:
    best_model_params_path = os.path.join(tempdir, "best_model_params.pt")

    for epoch in range(1, epochs + 1):
        train(model)
        val_loss = evaluate(model, val_data)
        val_ppl = math.exp(val_loss)
        print("-" * 89)
        print(f"| end of epoch {epoch:3d} | valid loss {val_loss:5.2f} | valid ppl {val_ppl:8.2f}")
        print("-" * 89)

        if val_loss < best_val_loss:
            best_val_loss = val_loss
            torch.save(model.state_dict(), best_model_params_path)

        scheduler.step()
    print(scheduler.get_last_lr())
    model.load_state_dict(torch.load(best_model_params_path))

test_loss = evaluate(model, test_data)
test_ppl = math.exp(test_loss)
print("=" * 89)
print(f"| End of training | test loss {test_loss:5.2f} | test ppl {test_ppl:8.2f}")
print("=" * 89)
print(evaluate(model, val_data) == best_val_loss)
