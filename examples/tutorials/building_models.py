"""The steps of PyTorch's "Building Models with PyTorch" (Introduction to PyTorch series,
written for ``import torch``): a ``TinyModel`` and its ``parameters()`` /
``named_parameters()``; ``Linear`` layers and their parameters; a LeNet-5-style
``Conv2d`` network; an ``LSTMTagger`` (``Embedding``, ``LSTM``, ``Linear``,
``log_softmax``) run on a toy sentence; ``nn.Transformer``'s structure; and the other
layers the tutorial shows (``MaxPool2d``, ``BatchNorm1d`` normalising its input,
``Dropout`` in training mode, activation and loss functions). Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the tutorial: random tensors are printed through their shapes and
checks rather than their values where integer or boolean results would depend on the
random stream."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()

        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax()

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x


tinymodel = TinyModel()

print("The model:")
print(tinymodel)

print("\n\nJust one layer:")
print(tinymodel.linear2)

print("\n\nModel params:")
for param in tinymodel.parameters():
    print(param.shape, param.requires_grad)

print("\n\nLayer params:")
for name, param in tinymodel.linear2.named_parameters():
    print(name, param.shape)

lin = torch.nn.Linear(3, 2)
x = torch.rand(1, 3)
print("Input:")
print(x)

print("\n\nWeight and Bias parameters:")
for param in lin.parameters():
    print(param)

y = lin(x)
print("\n\nOutput:")
print(y)
print(torch.allclose(y, x @ lin.weight.T + lin.bias))


class LeNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # 1 input image channel (black & white), 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = torch.nn.Conv2d(1, 6, 5)
        self.conv2 = torch.nn.Conv2d(6, 16, 3)
        # an affine operation: y = Wx + b
        self.fc1 = torch.nn.Linear(16 * 6 * 6, 120)  # 6*6 from image dimension
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        # Max pooling over a (2, 2) window
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        # If the size is a square you can only specify a single number
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]  # all dimensions except the batch dimension
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


net = LeNet()
print(net, net(torch.rand(2, 1, 32, 32)).shape)


class LSTMTagger(torch.nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.hidden_dim = hidden_dim

        self.word_embeddings = torch.nn.Embedding(vocab_size, embedding_dim)

        # The LSTM takes word embeddings as inputs, and outputs hidden states
        # with dimensionality hidden_dim.
        self.lstm = torch.nn.LSTM(embedding_dim, hidden_dim)

        # The linear layer that maps from hidden state space to tag space
        self.hidden2tag = torch.nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores


sentence = "The dog ate the apple".split()
word_to_ix = {w: i for i, w in enumerate(dict.fromkeys(sentence))}
tagger = LSTMTagger(6, 6, len(word_to_ix), 3)
scores = tagger(torch.tensor([word_to_ix[w] for w in sentence]))
print(tagger, scores.shape, torch.allclose(scores.exp().sum(1), torch.ones(5)))

transformer = torch.nn.Transformer(
    d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32
)
print(transformer)
src, tgt = torch.rand(7, 2, 16), torch.rand(5, 2, 16)
print(transformer(src, tgt).shape)

my_tensor = torch.rand(1, 6, 6)
print(my_tensor.shape)

maxpool_layer = torch.nn.MaxPool2d(3)
pooled = maxpool_layer(my_tensor)
print(pooled.shape, torch.equal(pooled[0, 0, 0], my_tensor[0, :3, :3].max()))

my_tensor = torch.rand(1, 4, 4) * 20 + 5
print(my_tensor.shape, bool(my_tensor.mean() > 5))

norm_layer = torch.nn.BatchNorm1d(4)
normed_tensor = norm_layer(my_tensor)
print(normed_tensor.shape)

print(torch.allclose(normed_tensor.mean(), torch.tensor(0.0), atol=1e-5))

my_tensor = torch.rand(1, 4, 4)

dropout = torch.nn.Dropout(p=0.4)
dropped = dropout(my_tensor)
kept = dropped != 0
print(torch.allclose(dropped[kept], my_tensor[kept] / 0.6))
dropout.eval()
print(torch.equal(dropout(my_tensor), my_tensor))

print(nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.MSELoss(), nn.CrossEntropyLoss(), nn.NLLLoss())
