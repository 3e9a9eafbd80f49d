"""Train a character-level LSTM on a short text shipped with chainrule, then sample from it.

Written for ``import torch``: it runs with PyTorch (``python examples/char_lstm.py``) and,
unchanged, with chainrule (``chainrule run examples/char_lstm.py``). The model embeds
each character, runs a one-layer LSTM and predicts the next character; it trains on
random windows of the text with Adam and gradient clipping, prints the loss as it falls,
and ends by sampling a few lines.

    python examples/char_lstm.py [--steps 600] [--text examples/data/chain_rule.txt]

Measured (docs/examples.md): over the default 600 steps the mean loss falls from about
2.8 (the first 50 steps) to about 0.2 (the last 50), a fall of more than 2.5; a uniform
guess scores 3.83.
"""

import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embedding_dim=32, hidden_size=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size)

    def forward(self, chars, state=None):
        out, state = self.lstm(self.embed(chars), state)
        return self.head(out), state


def batches(data, seq_len, batch_size, generator):
    """Random windows of the text: inputs and the same windows shifted by one."""
    starts = torch.randint(0, len(data) - seq_len - 1, (batch_size,), generator=generator)
    x = torch.stack([data[s : s + seq_len] for s in starts.tolist()])
    y = torch.stack([data[s + 1 : s + seq_len + 1] for s in starts.tolist()])
    return x, y


def sample(model, stoi, itos, prompt, length, generator, temperature=0.8):
    model.eval()
    chars = [stoi[c] for c in prompt]
    with torch.no_grad():
        logits, state = model(torch.tensor([chars]))
        for _ in range(length):
            probs = F.softmax(logits[0, -1] / temperature, dim=-1)
            nxt = torch.multinomial(probs, 1, generator=generator).item()
            chars.append(nxt)
            logits, state = model(torch.tensor([[nxt]]), state)
    model.train()
    return "".join(itos[i] for i in chars)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default=os.path.join(HERE, "data", "chain_rule.txt"))
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    vocab = sorted(set(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    print(f"{len(text)} characters, {len(vocab)} distinct")

    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    model = CharLSTM(len(vocab))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    first = last = None
    window = []
    for step in range(1, args.steps + 1):
        x, y = batches(data, args.seq_len, args.batch_size, generator)
        logits, _ = model(x)
        loss = F.cross_entropy(logits.reshape(-1, len(vocab)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        window.append(loss.item())
        if step % 50 == 0 or step == args.steps:
            mean = sum(window) / len(window)
            window = []
            first = mean if first is None else first
            last = mean
            print(f"step {step}: loss {mean:.3f}")

    print(f"uniform guess: loss {math.log(len(vocab)):.3f}")
    print(f"loss fell from {first:.3f} to {last:.3f}")
    print(sample(model, stoi, vocab, "The chain rule", 200, generator))
    return first, last


if __name__ == "__main__":
    main()
