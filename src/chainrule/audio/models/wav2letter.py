"""Wav2Letter (Collobert et al., 2016): a stack of 1-D convolutions with ReLU over a
waveform or a feature sequence, ending in log-softmax class scores per frame."""

from __future__ import annotations

from chainrule import Tensor, nn

__all__ = ["Wav2Letter"]

# (in, out, kernel, stride, padding) of the acoustic stack after its first layer's input
_ACOUSTIC = (
    [(250, 250, 48, 2, 23)]
    + [(250, 250, 7, 1, 3)] * 7
    + [(250, 2000, 32, 1, 16), (2000, 2000, 1, 1, 0)]
)


def _conv_relu_stack(specs: list[tuple[int, int, int, int, int]]) -> list[nn.Module]:
    """Conv1d followed by ReLU for every (in, out, kernel, stride, padding) spec."""
    layers: list[nn.Module] = []
    for c_in, c_out, kernel, stride, padding in specs:
        layers += [
            nn.Conv1d(c_in, c_out, kernel, stride=stride, padding=padding),
            nn.ReLU(inplace=True),
        ]
    return layers


class Wav2Letter(nn.Module):
    """Wav2Letter: ``log_softmax(convs(x), dim=1)``; with ``input_type="waveform"`` a
    stride-160 convolution (kernel 250) first turns the waveform into 250 channels.

    Args:
        num_classes: number of output classes.
        input_type: ``"waveform"``, ``"power_spectrum"`` or ``"mfcc"``.
        num_features: number of input channels.
    """

    def __init__(
        self, num_classes: int = 40, input_type: str = "waveform", num_features: int = 1
    ) -> None:
        super().__init__()
        first_in = 250 if input_type == "waveform" else num_features
        specs = list(_ACOUSTIC)
        specs[0] = (first_in,) + specs[0][1:]
        specs.append((2000, num_classes, 1, 1, 0))
        acoustic_model = nn.Sequential(*_conv_relu_stack(specs))
        if input_type == "waveform":
            waveform_model = nn.Sequential(*_conv_relu_stack([(num_features, 250, 250, 160, 45)]))
            self.acoustic_model = nn.Sequential(waveform_model, acoustic_model)
        if input_type in ["power_spectrum", "mfcc"]:
            self.acoustic_model = acoustic_model

    def forward(self, x: Tensor) -> Tensor:
        """Class log-probabilities ``(batch, num_classes, frames)`` of ``x`` ``(batch, num_features, time)``."""
        return nn.functional.log_softmax(self.acoustic_model(x), dim=1)
