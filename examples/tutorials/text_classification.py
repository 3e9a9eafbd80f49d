"""The steps of PyTorch's "Text classification with the torchtext library" tutorial
(written for ``import torch`` and torchtext): news headlines tokenized and numbered by a
vocabulary, batched by a ``collate_batch`` that concatenates the token ids and records
each text's offset (``cumsum``); a model of ``nn.EmbeddingBag`` (the mean of each
text's embeddings, by offsets) and a ``Linear`` classifier; training with
``CrossEntropyLoss``, ``SGD``, ``clip_grad_norm_`` and a ``StepLR`` stepped when the
validation accuracy stops improving; ``random_split`` of the training set; evaluation on
the test set and a prediction for a new headline. Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: no AG_NEWS download and no torchtext, so the headlines
are generated from a few words per class (World, Sports, Business, Sci/Tec) plus shared
words, tokenized by ``str.lower().split()`` and numbered by a ``dict`` vocabulary with
``<unk>``; fewer epochs and smaller batches; accuracies are printed as floats, and the
predicted class is checked to be one of the four where the tutorial names it."""

import random
import time

import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data.dataset import random_split

torch.manual_seed(0)
device = torch.device("cpu")

# A synthetic AG_NEWS: (label, text) pairs, labels 1..4 as in the dataset.
rng = random.Random(0)
topic_words = {
    1: "president minister election government war treaty embassy parliament".split(),
    2: "match goal season coach league tournament striker championship".split(),
    3: "shares market profit stocks investors bank earnings quarterly".split(),
    4: "software internet computer scientists space researchers chip wireless".split(),
}
shared = "the a of in on to for with new says after over".split()


def make_split(n):
    rows = []
    for _ in range(n):
        label = rng.randint(1, 4)
        words = rng.choices(topic_words[label], k=rng.randint(3, 6)) + rng.choices(shared, k=4)
        rng.shuffle(words)
        rows.append((label, " ".join(words).capitalize()))
    return rows


train_iter, test_iter = make_split(480), make_split(96)
tokenizer = str.split


def yield_tokens(data_iter):
    for _, text in data_iter:
        yield tokenizer(text.lower())


vocab = {"<unk>": 0}
for tokens in yield_tokens(train_iter):
    for token in tokens:
        vocab.setdefault(token, len(vocab))


def text_pipeline(x):
    return [vocab.get(token, 0) for token in tokenizer(x.lower())]


def label_pipeline(x):
    return int(x) - 1


print(text_pipeline("here is the an example"))
print(label_pipeline("10"))


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list.to(device), text_list.to(device), offsets.to(device)


dataloader = DataLoader(train_iter, batch_size=8, shuffle=False, collate_fn=collate_batch)
labels, text, offsets = next(iter(dataloader))
print(labels.shape, text.shape, offsets.shape, offsets[0].item(), text.dtype)


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


num_class = len(set([label for (label, text) in train_iter]))
vocab_size = len(vocab)
emsize = 64
model = TextClassificationModel(vocab_size, emsize, num_class).to(device)
print(num_class, vocab_size, model)

# EmbeddingBag's default mode is the mean of each bag
bag = model.embedding(text, offsets)
first = model.embedding.weight[text[offsets[0] : offsets[1]]].mean(0)
print(bag.shape, torch.allclose(bag[0], first, atol=1e-6))


def train(dataloader):
    model.train()
    total_acc, total_count = 0, 0
    log_interval = 20
    start_time = time.time()

    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
        if idx % log_interval == 0 and idx > 0:
            elapsed = time.time() - start_time
            print(
                f"| epoch {epoch:3d} | {idx:5d}/{len(dataloader):5d} batches "
                f"| accuracy {total_acc / total_count + 0.0001:8.3f}"
            )
            total_acc, total_count = 0, 0
            start_time = time.time()
    return elapsed


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0

    with torch.no_grad():
        for label, text, offsets in dataloader:
            predicted_label = model(text, offsets)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


EPOCHS = 3
LR = 5
BATCH_SIZE = 8

criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
total_accu = None
train_dataset = list(train_iter)
test_dataset = list(test_iter)
num_train = int(len(train_dataset) * 0.95)
split_train_, split_valid_ = random_split(
    train_dataset, [num_train, len(train_dataset) - num_train]
)
print(len(split_train_), len(split_valid_))

train_dataloader = DataLoader(
    split_train_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch
)
valid_dataloader = DataLoader(
    split_valid_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch
)
test_dataloader = DataLoader(
    test_dataset, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch
)

for epoch in range(1, EPOCHS + 1):
    epoch_start_time = time.time()
    train(train_dataloader)
    accu_val = evaluate(valid_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print("-" * 59)
    print(
        f"| end of epoch {epoch:3d} | time: {time.time() - epoch_start_time:5.2f}s | "
        f"valid accuracy {accu_val + 0.0001:8.3f} "
    )
    print("-" * 59)

print("Checking the results of test dataset.")
accu_test = evaluate(test_dataloader)
print(f"test accuracy {accu_test + 0.0001:8.3f}")

ag_news_label = {1: "World", 2: "Sports", 3: "Business", 4: "Sci/Tec"}


def predict(text, text_pipeline):
    with torch.no_grad():
        text = torch.tensor(text_pipeline(text))
        output = model(text, torch.tensor([0]))
        return output.argmax(1).item() + 1


ex_text_str = "Shares of the bank rose after quarterly earnings beat the market"
model = model.to("cpu")
print(ag_news_label[predict(ex_text_str, text_pipeline)] in ag_news_label.values())
