"""torchaudio's "Speech Command Classification with torchaudio" tutorial, written for
``import torch`` and ``import torchaudio``: the SPEECHCOMMANDS dataset split into
training and testing subsets by its list files, resampling to 8 kHz, a collate_fn that
pads the waveforms with ``pad_sequence``, the M5 convolutional network on raw audio, and
training with Adam and StepLR. Runs unchanged with PyTorch + torchaudio and with
``chainrule run``.

Only the data differ: there is no download here, so the script first writes a
SPEECHCOMMANDS tree of its own (``SpeechCommands/speech_commands_v0.02/<word>/
<speaker>_nohash_<n>.wav``, ``validation_list.txt``, ``testing_list.txt``) in a temporary
directory: four words, 16 one-second 16 kHz clips each, every word a tone of its own
pitch in noise, so two epochs learn it. ``download=True`` then finds the files and
downloads nothing. torchaudio 2.9+ decodes audio through TorchCodec; where that is not
installed, WAV files are read with Python's ``wave`` module instead."""

import os
import tempfile
import wave

import numpy as np

WORDS = {"down": 300.0, "go": 700.0, "no": 1300.0, "yes": 2100.0}
SPEAKERS = [f"{k:08x}" for k in range(0x1A2B3C00, 0x1A2B3C10)]


def write_wav(path, samples, sample_rate=16000):
    """16-bit PCM, one channel."""
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(np.clip(samples * 32768, -32768, 32767).astype("<i2").tobytes())


def write_speech_commands(root):
    folder = os.path.join(root, "SpeechCommands", "speech_commands_v0.02")
    rng = np.random.default_rng(0)
    t = np.arange(16000) / 16000
    validation, testing = [], []
    for word, pitch in WORDS.items():
        os.makedirs(os.path.join(folder, word))
        for k, speaker in enumerate(SPEAKERS):
            name = f"{word}/{speaker}_nohash_0.wav"
            phase = rng.uniform(0, 2 * np.pi)
            tone = 0.5 * np.sin(2 * np.pi * pitch * t + phase)
            write_wav(os.path.join(folder, name), tone + 0.05 * rng.standard_normal(16000))
            (validation if k == 12 else testing if k >= 13 else []).append(name)
    for filename, names in (("validation_list.txt", validation), ("testing_list.txt", testing)):
        with open(os.path.join(folder, filename), "w") as f:
            f.write("\n".join(names) + "\n")


os.chdir(tempfile.mkdtemp())
write_speech_commands(".")

# ---------------------------------------------------------------- the tutorial
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402
import torchaudio  # noqa: E402
from torchaudio.datasets import SPEECHCOMMANDS  # noqa: E402


def load_wav(uri, *args, **kwargs):
    """``[channel, time]`` float32 samples of a 16-bit WAV file, as ``torchaudio.load``."""
    with wave.open(os.fspath(uri)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), "<i2")
        samples = frames.reshape(-1, w.getnchannels()).T / 32768
        return torch.from_numpy(samples.astype(np.float32)), w.getframerate()


try:
    torchaudio.load("SpeechCommands/speech_commands_v0.02/yes/1a2b3c00_nohash_0.wav")
except ImportError:  # torchaudio >= 2.9 without TorchCodec
    torchaudio.load = load_wav

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)


class SubsetSC(SPEECHCOMMANDS):
    def __init__(self, subset: str = None):
        super().__init__("./", download=True)

        def load_list(filename):
            filepath = os.path.join(self._path, filename)
            with open(filepath) as fileobj:
                return [
                    os.path.normpath(os.path.join(self._path, line.strip())) for line in fileobj
                ]

        if subset == "validation":
            self._walker = load_list("validation_list.txt")
        elif subset == "testing":
            self._walker = load_list("testing_list.txt")
        elif subset == "training":
            excludes = load_list("validation_list.txt") + load_list("testing_list.txt")
            excludes = set(excludes)
            self._walker = [w for w in self._walker if w not in excludes]


# Create training and testing split of the data. We do not use validation in this tutorial.
train_set = SubsetSC("training")
test_set = SubsetSC("testing")

waveform, sample_rate, label, speaker_id, utterance_number = train_set[0]
print(f"Shape of waveform: {waveform.size()}")
print(f"Sample rate of waveform: {sample_rate}")
print(f"Training set: {len(train_set)} clips, testing set: {len(test_set)} clips")

labels = sorted(list(set(datapoint[2] for datapoint in train_set)))
print(labels)

new_sample_rate = 8000
transform = torchaudio.transforms.Resample(orig_freq=sample_rate, new_freq=new_sample_rate)
transformed = transform(waveform)
print(f"Shape of transformed waveform: {transformed.size()}")


def label_to_index(word):
    # Return the position of the word in labels
    return torch.tensor(labels.index(word))


def index_to_label(index):
    # Return the word corresponding to the index in labels
    # This is the inverse of label_to_index
    return labels[index]


word_start = "yes"
index = label_to_index(word_start)
word_recovered = index_to_label(index)
print(word_start, "-->", index, "-->", word_recovered)


def pad_sequence(batch):
    # Make all tensor in a batch the same length by padding with zeros
    batch = [item.t() for item in batch]
    batch = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=0.0)
    return batch.permute(0, 2, 1)


def collate_fn(batch):
    # A data tuple has the form:
    # waveform, sample_rate, label, speaker_id, utterance_number

    tensors, targets = [], []

    # Gather in lists, and encode labels as indices
    for waveform, _, label, *_ in batch:
        tensors += [waveform]
        targets += [label_to_index(label)]

    # Group the list of tensors into a batched tensor
    tensors = pad_sequence(tensors)
    targets = torch.stack(targets)

    return tensors, targets


batch_size = 8
num_workers = 0
pin_memory = False

train_loader = torch.utils.data.DataLoader(
    train_set,
    batch_size=batch_size,
    shuffle=True,
    collate_fn=collate_fn,
    num_workers=num_workers,
    pin_memory=pin_memory,
)
test_loader = torch.utils.data.DataLoader(
    test_set,
    batch_size=batch_size,
    shuffle=False,
    drop_last=False,
    collate_fn=collate_fn,
    num_workers=num_workers,
    pin_memory=pin_memory,
)


class M5(nn.Module):
    def __init__(self, n_input=1, n_output=35, stride=16, n_channel=32):
        super().__init__()
        self.conv1 = nn.Conv1d(n_input, n_channel, kernel_size=80, stride=stride)
        self.bn1 = nn.BatchNorm1d(n_channel)
        self.pool1 = nn.MaxPool1d(4)
        self.conv2 = nn.Conv1d(n_channel, n_channel, kernel_size=3)
        self.bn2 = nn.BatchNorm1d(n_channel)
        self.pool2 = nn.MaxPool1d(4)
        self.conv3 = nn.Conv1d(n_channel, 2 * n_channel, kernel_size=3)
        self.bn3 = nn.BatchNorm1d(2 * n_channel)
        self.pool3 = nn.MaxPool1d(4)
        self.conv4 = nn.Conv1d(2 * n_channel, 2 * n_channel, kernel_size=3)
        self.bn4 = nn.BatchNorm1d(2 * n_channel)
        self.pool4 = nn.MaxPool1d(4)
        self.fc1 = nn.Linear(2 * n_channel, n_output)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(self.bn1(x))
        x = self.pool1(x)
        x = self.conv2(x)
        x = F.relu(self.bn2(x))
        x = self.pool2(x)
        x = self.conv3(x)
        x = F.relu(self.bn3(x))
        x = self.pool3(x)
        x = self.conv4(x)
        x = F.relu(self.bn4(x))
        x = self.pool4(x)
        x = F.avg_pool1d(x, x.shape[-1])
        x = x.permute(0, 2, 1)
        x = self.fc1(x)
        return F.log_softmax(x, dim=2)


model = M5(n_input=transformed.shape[0], n_output=len(labels))
model.to(device)
print(model)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


n = count_parameters(model)
print(f"Number of parameters: {n}")

optimizer = optim.Adam(model.parameters(), lr=0.01, weight_decay=0.0001)
# reduce the learning rate after 20 epochs by a factor of 10
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.1)


def train(model, epoch, log_interval):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data = data.to(device)
        target = target.to(device)

        # apply transform and model on whole batch directly on device
        data = transform(data)
        output = model(data)

        # negative log-likelihood for a tensor of size (batch x 1 x n_output)
        loss = F.nll_loss(output.squeeze(), target)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        # print training stats
        if batch_idx % log_interval == 0:
            print(
                f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
                f"({100.0 * batch_idx / len(train_loader):.1f}%)]\tLoss: {loss.item():.6f}"
            )

        # record loss
        losses.append(loss.item())


def number_of_correct(pred, target):
    # count number of correct predictions
    return pred.squeeze().eq(target).sum().item()


def get_likely_index(tensor):
    # find most likely label index for each element in the batch
    return tensor.argmax(dim=-1)


def test(model, epoch):
    model.eval()
    correct = 0
    for data, target in test_loader:
        data = data.to(device)
        target = target.to(device)

        # apply transform and model on whole batch directly on device
        data = transform(data)
        output = model(data)

        pred = get_likely_index(output)
        correct += number_of_correct(pred, target)

    # the accuracy as a percentage only: the count depends on the random initialization
    print(f"\nTest Epoch: {epoch}\tAccuracy: {100.0 * correct / len(test_loader.dataset):.1f}%\n")


log_interval = 2
n_epoch = 2

losses = []

# The transform needs to live on the same device as the model and the data.
transform = transform.to(device)
for epoch in range(1, n_epoch + 1):
    train(model, epoch, log_interval)
    test(model, epoch)
    scheduler.step()

print(f"Mean loss, first and last epoch: {np.mean(losses[:6]):.4f} -> {np.mean(losses[-6:]):.4f}")


def predict(tensor):
    # Use the model to predict the label of the waveform
    tensor = tensor.to(device)
    tensor = transform(tensor)
    tensor = model(tensor.unsqueeze(0))
    tensor = get_likely_index(tensor)
    tensor = index_to_label(tensor.squeeze())
    return tensor


waveform, sample_rate, utterance, *_ = train_set[-1]
print(f"Expected: {utterance}. Predicted: {predict(waveform)}.")
