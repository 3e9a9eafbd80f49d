"""DeepSpeech (Hannun et al., 2014): three clipped-ReLU fully connected layers, one
bidirectional ReLU RNN whose two directions are summed, a fourth fully connected layer and
a linear classifier with log-softmax."""

from __future__ import annotations

from chainrule import Tensor, nn

__all__ = ["DeepSpeech"]


class FullyConnected(nn.Module):
    """``dropout(min(relu(W x + b), relu_max_clip))``."""

    def __init__(
        self, n_feature: int, n_hidden: int, dropout: float, relu_max_clip: int = 20
    ) -> None:
        super().__init__()
        self.fc = nn.Linear(n_feature, n_hidden, bias=True)
        self.relu_max_clip = relu_max_clip
        self.dropout = dropout

    def forward(self, x: Tensor) -> Tensor:
        """The clipped ReLU of the affine map of ``x``, then dropout when training."""
        x = nn.functional.hardtanh(nn.functional.relu(self.fc(x)), 0, self.relu_max_clip)
        if self.dropout:
            x = nn.functional.dropout(x, self.dropout, self.training)
        return x


class DeepSpeech(nn.Module):
    """DeepSpeech.

    Args:
        n_feature: number of input features.
        n_hidden: hidden size.
        n_class: number of output classes.
        dropout: dropout probability after each fully connected layer.
    """

    def __init__(
        self, n_feature: int, n_hidden: int = 2048, n_class: int = 40, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.n_hidden = n_hidden
        self.fc1 = FullyConnected(n_feature, n_hidden, dropout)
        self.fc2 = FullyConnected(n_hidden, n_hidden, dropout)
        self.fc3 = FullyConnected(n_hidden, n_hidden, dropout)
        self.bi_rnn = nn.RNN(
            n_hidden, n_hidden, num_layers=1, nonlinearity="relu", bidirectional=True
        )
        self.fc4 = FullyConnected(n_hidden, n_hidden, dropout)
        self.out = nn.Linear(n_hidden, n_class)

    def forward(self, x: Tensor) -> Tensor:
        """Class log-probabilities ``(batch, time, n_class)`` of ``x`` ``(batch, 1, time, n_feature)``."""
        x = self.fc3(self.fc2(self.fc1(x)))
        x = x.squeeze(1).transpose(0, 1)  # time-major for the RNN
        x, _ = self.bi_rnn(x)
        x = x[:, :, : self.n_hidden] + x[:, :, self.n_hidden :]
        x = self.out(self.fc4(x))
        return nn.functional.log_softmax(x.permute(1, 0, 2), dim=2)
