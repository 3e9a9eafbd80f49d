"""The steps of PyTorch's "NLP From Scratch: Generating Names with a Character-Level RNN"
tutorial (written for ``import torch``): names read per language, turned to ASCII with
``unicodedata``; one-hot tensors for the category, the input letters and the targets
(``LongTensor`` of the next letters, ending with EOS); an ``RNN`` module of ``Linear``
layers (input and hidden to hidden and output, then ``o2o``), ``Dropout`` and
``LogSoftmax``, run one letter at a time; training with ``NLLLoss`` summed over the
name and a hand-written update (``p.data.add_(p.grad.data, alpha=-learning_rate)``);
and sampling names by ``topk`` until EOS. Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: no download, so a few names per language are written
in a dictionary (accents included, as the dataset has them); fewer iterations; losses
and elapsed seconds are printed as floats, the samples as their lengths and alphabet checks (the letters
depend on the random weights), and no plot is drawn."""

import math
import random
import string
import time
import unicodedata

import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)

all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters) + 1  # Plus EOS marker


# Turn a Unicode string to plain ASCII, thanks to https://stackoverflow.com/a/518232/2809427
def unicodeToAscii(s):
    return "".join(
        c
        for c in unicodedata.normalize("NFD", s)
        if unicodedata.category(c) != "Mn" and c in all_letters
    )


names = {
    "French": ["Abel", "Béringer", "Chastain", "Dubois", "Émile", "Fabron", "Giroux", "Lefèvre"],
    "German": ["Abend", "Bauer", "Dietrich", "Färber", "Günther", "Hoffmann", "Jäger", "Müller"],
    "Spanish": ["Abaroa", "Castillo", "Díaz", "Esparza", "Gómez", "Ibáñez", "López", "Muñoz"],
    "Russian": ["Abakumov", "Belov", "Chaikin", "Dorofeev", "Egorov", "Fedorov", "Ivanov"],
}
category_lines = {}
all_categories = []
for category, lines in names.items():
    all_categories.append(category)
    category_lines[category] = [unicodeToAscii(line) for line in lines]
n_categories = len(all_categories)
print("# categories:", n_categories, all_categories)
print(unicodeToAscii("O'Néàl"))


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size

        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


# Random item from a list
def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


# Get a random category and random line from that category
def randomTrainingPair():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    return category, line


# One-hot vector for category
def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


# One-hot matrix of first to last letters (not including EOS) for input
def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


# ``LongTensor`` of second letter to end (EOS) for target
def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters - 1)  # EOS
    return torch.LongTensor(letter_indexes)


# Make category, input, and target tensors from a random category, line pair
def randomTrainingExample():
    category, line = randomTrainingPair()
    category_tensor = categoryTensor(category)
    input_line_tensor = inputTensor(line)
    target_line_tensor = targetTensor(line)
    return category_tensor, input_line_tensor, target_line_tensor


c, i, t = randomTrainingExample()
print(c.shape, i.shape, t.shape, t[-1].item(), int(i.sum()))

criterion = nn.NLLLoss()

learning_rate = 0.0005


def train(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = rnn.initHidden()

    rnn.zero_grad()

    loss = torch.Tensor([0])  # you can also just simply use ``loss = 0``

    for i in range(input_line_tensor.size(0)):
        output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])
        loss += l

    loss.backward()

    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)

    return output, loss.item() / input_line_tensor.size(0)


def timeSince(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    s -= m * 60
    return f"{m}m {s:.1f}s"


rnn = RNN(n_letters, 128, n_letters)
print(rnn)

n_iters = 600
print_every = 200
plot_every = 100
all_losses = []
total_loss = 0  # Reset every ``plot_every`` ``iters``

start = time.time()

for iter in range(1, n_iters + 1):
    output, loss = train(*randomTrainingExample())
    total_loss += loss

    if iter % print_every == 0:
        print(f"{timeSince(start)} ({iter} {iter / n_iters * 100:.0f}%) {loss:.4f}")

    if iter % plot_every == 0:
        all_losses.append(total_loss / plot_every)
        total_loss = 0
print(len(all_losses))

max_length = 20


# Sample from a category and starting letter
def sample(category, start_letter="A"):
    with torch.no_grad():  # no need to track history in sampling
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = rnn.initHidden()

        output_name = start_letter

        for _ in range(max_length):
            output, hidden = rnn(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters - 1:
                break
            else:
                letter = all_letters[topi]
                output_name += letter
            input = inputTensor(letter)

        return output_name


# Get multiple samples from one category and multiple starting letters
def samples(category, start_letters="ABC"):
    for start_letter in start_letters:
        name = sample(category, start_letter)
        print(
            len(name) <= max_length + 1,
            name[0] == start_letter,
            all(ch in all_letters for ch in name),
        )


rnn.eval()
samples("Russian", "RUS")
samples("German", "GER")
