"""The steps of PyTorch's "NLP From Scratch: Classifying Names with a Character-Level
RNN" tutorial (written for ``import torch``): names read from one text file per
language, turned to ASCII with ``unicodedata``; one-hot letter tensors of shape
(length, 1, letters); a ``Dataset`` of (label tensor, name tensor) split with
``random_split`` and a seeded ``torch.Generator``; a classifier of ``nn.RNN``, a linear
layer and ``LogSoftmax``; training on mini-batches of names one at a time (losses summed
with ``NLLLoss``, ``clip_grad_norm_``, SGD); ``topk`` for the predicted language and a
confusion matrix filled under ``no_grad``. Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: no download, so the script writes six short lists of
names in a temporary directory; 3 epochs; no plots (the loss and the confusion matrix's
shape and trace are printed)."""

import glob
import os
import random
import string
import tempfile
import unicodedata

import torch
import torch.nn as nn
from torch.utils.data import Dataset

NAMES = {
    "English": "Smith Jones Taylor Brown Williams Wilson Johnson Davies Robinson Wright",
    "French": "Bernard Dubois Durand Lefèvre Moreau Laurent Girard Rousseau Mercier Fournier",
    "German": "Müller Schmidt Schneider Fischer Weber Becker Hoffmann Schäfer Koch Richter",
    "Italian": "Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco",
    "Japanese": "Sato Suzuki Takahashi Tanaka Watanabe Ito Yamamoto Nakamura Kobayashi Kato",
    "Spanish": "García Fernández González Rodríguez López Martínez Sánchez Pérez Gómez Díaz",
}
root = tempfile.mkdtemp()
os.makedirs(os.path.join(root, "data", "names"))
for language, names in NAMES.items():
    with open(os.path.join(root, "data", "names", language + ".txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(names.split()) + "\n")

torch.manual_seed(0)
random.seed(0)
allowed_characters = string.ascii_letters + " .,;'" + "_"
n_letters = len(allowed_characters)


def unicodeToAscii(s):
    return "".join(
        c
        for c in unicodedata.normalize("NFD", s)
        if unicodedata.category(c) != "Mn" and c in allowed_characters
    )


print(unicodeToAscii("Ślusàrski"))


def letterToIndex(letter):
    if letter not in allowed_characters:
        return allowed_characters.find("_")
    return allowed_characters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(lineToTensor("a").shape, lineToTensor("Jones").size())


class NamesDataset(Dataset):
    def __init__(self, data_dir):
        self.data_dir = data_dir
        labels_set = set()
        self.data = []
        self.data_tensors = []
        self.labels = []
        self.labels_tensors = []
        for filename in sorted(glob.glob(os.path.join(data_dir, "*.txt"))):
            label = os.path.splitext(os.path.basename(filename))[0]
            labels_set.add(label)
            lines = open(filename, encoding="utf-8").read().strip().split("\n")
            for name in lines:
                self.data.append(name)
                self.data_tensors.append(lineToTensor(name))
                self.labels.append(label)
        self.labels_uniq = sorted(labels_set)
        for idx in range(len(self.labels)):
            temp_tensor = torch.tensor([self.labels_uniq.index(self.labels[idx])], dtype=torch.long)
            self.labels_tensors.append(temp_tensor)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.labels_tensors[idx], self.data_tensors[idx], self.labels[idx], self.data[idx]


alldata = NamesDataset(os.path.join(root, "data", "names"))
print(f"loaded {len(alldata)} items of data")
print(f"example = {alldata[0][2]}, {alldata[0][3]}, {alldata[0][0]}, {alldata[0][1].shape}")

train_set, test_set = torch.utils.data.random_split(
    alldata, [0.85, 0.15], generator=torch.Generator(device="cpu").manual_seed(2024)
)
print(f"train examples = {len(train_set)}, validation examples = {len(test_set)}")


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        return self.softmax(output)


n_hidden = 128
rnn = CharRNN(n_letters, n_hidden, len(alldata.labels_uniq))
print(rnn)


def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i


output = rnn(lineToTensor("Albert"))
print(output.shape, output.dtype, label_from_output(output, alldata.labels_uniq)[0] in NAMES)


def train(rnn, training_data, n_epoch=3, n_batch_size=8, learning_rate=0.2, criterion=None):
    current_loss = 0
    all_losses = []
    rnn.train()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)
    for iter in range(1, n_epoch + 1):
        rnn.zero_grad()
        batches = list(range(len(training_data)))
        random.shuffle(batches)
        batches = [batches[i : i + n_batch_size] for i in range(0, len(batches), n_batch_size)]
        for _idx, batch in enumerate(batches):
            batch_loss = 0
            for i in batch:
                (label_tensor, text_tensor, label, text) = training_data[i]
                output = rnn.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()
            current_loss += batch_loss.item() / len(batch)
        all_losses.append(current_loss / len(batches))
        print(f"{iter} ({iter / n_epoch:.0%}): \t average batch loss = {all_losses[-1]:.4f}")
        current_loss = 0
    return all_losses


all_losses = train(rnn, train_set, criterion=nn.NLLLoss())


def evaluate(rnn, testing_data, classes):
    confusion = torch.zeros(len(classes), len(classes))
    rnn.eval()
    with torch.no_grad():
        for i in range(len(testing_data)):
            (label_tensor, text_tensor, label, text) = testing_data[i]
            output = rnn(text_tensor)
            guess, guess_i = label_from_output(output, classes)
            label_i = classes.index(label)
            confusion[label_i][guess_i] += 1
    for i in range(len(classes)):
        denom = confusion[i].sum()
        if denom > 0:
            confusion[i] = confusion[i] / denom
    return confusion


confusion = evaluate(rnn, test_set, classes=alldata.labels_uniq)
print(confusion.shape, float(confusion.trace()) * 0.5)
