"""Conv-TasNet (Luo and Mesgarani, 2019), non-causal: a learned convolutional encoder, a
temporal convolution network (stacks of dilated depthwise-separable blocks) that predicts
one mask per source, and a transposed-convolution decoder of each masked encoding."""

from __future__ import annotations

import chainrule
from chainrule import Tensor, nn

__all__ = ["ConvTasNet", "conv_tasnet_base"]


class ConvBlock(nn.Module):
    """One TCN block: 1x1 conv -> PReLU -> global layer norm -> dilated depthwise conv ->
    PReLU -> global layer norm, then a 1x1 residual output (unless ``no_residual``) and a
    1x1 skip output.

    Args:
        io_channels: input/output channels <B, Sc>.
        hidden_channels: channels inside the block <H>.
        kernel_size: kernel of the depthwise convolution <P>.
        padding: padding of the depthwise convolution.
        dilation: dilation of the depthwise convolution.
        no_residual: give no residual output.
    """

    def __init__(
        self,
        io_channels: int,
        hidden_channels: int,
        kernel_size: int,
        padding: int,
        dilation: int = 1,
        no_residual: bool = False,
    ) -> None:
        super().__init__()
        self.conv_layers = nn.Sequential(
            nn.Conv1d(io_channels, hidden_channels, kernel_size=1),
            nn.PReLU(),
            nn.GroupNorm(num_groups=1, num_channels=hidden_channels, eps=1e-08),
            nn.Conv1d(
                hidden_channels,
                hidden_channels,
                kernel_size=kernel_size,
                padding=padding,
                dilation=dilation,
                groups=hidden_channels,
            ),
            nn.PReLU(),
            nn.GroupNorm(num_groups=1, num_channels=hidden_channels, eps=1e-08),
        )
        self.res_out = (
            None if no_residual else nn.Conv1d(hidden_channels, io_channels, kernel_size=1)
        )
        self.skip_out = nn.Conv1d(hidden_channels, io_channels, kernel_size=1)

    def forward(self, input: Tensor) -> tuple[Tensor | None, Tensor]:
        """``(residual or None, skip)`` of ``input`` ``(batch, io_channels, frames)``."""
        feature = self.conv_layers(input)
        residual = None if self.res_out is None else self.res_out(feature)
        return residual, self.skip_out(feature)


class MaskGenerator(nn.Module):
    """The TCN separation module: masks ``(batch, num_sources, input_dim, frames)`` from
    encoder features, ``activation(conv(prelu(sum of the blocks' skip outputs)))``.

    Args:
        input_dim: feature dimension <N>.
        num_sources: number of sources.
        kernel_size: kernel of the blocks <P>.
        num_feats: block input/output channels <B, Sc>.
        num_hidden: block hidden channels <H>.
        num_layers: blocks per stack <X> (dilations 1, 2, ..., 2**(X-1)).
        num_stacks: number of stacks <R>.
        msk_activate: ``"sigmoid"`` or ``"relu"``.
    """

    def __init__(
        self,
        input_dim: int,
        num_sources: int,
        kernel_size: int,
        num_feats: int,
        num_hidden: int,
        num_layers: int,
        num_stacks: int,
        msk_activate: str,
    ) -> None:
        super().__init__()
        self.input_dim = input_dim
        self.num_sources = num_sources
        self.input_norm = nn.GroupNorm(num_groups=1, num_channels=input_dim, eps=1e-8)
        self.input_conv = nn.Conv1d(input_dim, num_feats, kernel_size=1)
        self.receptive_field = 0
        self.conv_layers = nn.ModuleList([])
        for stack in range(num_stacks):
            for layer in range(num_layers):
                dilation = 2**layer
                last = layer == num_layers - 1 and stack == num_stacks - 1
                self.conv_layers.append(
                    ConvBlock(
                        num_feats,
                        num_hidden,
                        kernel_size,
                        padding=dilation,
                        dilation=dilation,
                        no_residual=last,
                    )
                )
                first = stack == 0 and layer == 0
                self.receptive_field += kernel_size if first else (kernel_size - 1) * dilation
        self.output_prelu = nn.PReLU()
        self.output_conv = nn.Conv1d(num_feats, input_dim * num_sources, kernel_size=1)
        if msk_activate == "sigmoid":
            self.mask_activate = nn.Sigmoid()
        elif msk_activate == "relu":
            self.mask_activate = nn.ReLU()
        else:
            raise ValueError(f"Unsupported activation {msk_activate}")

    def forward(self, input: Tensor) -> Tensor:
        """Masks ``(batch, num_sources, input_dim, frames)`` of ``input`` ``(batch, input_dim, frames)``."""
        batch_size = input.shape[0]
        feats = self.input_conv(self.input_norm(input))
        output: Tensor | float = 0.0
        for block in self.conv_layers:
            residual, skip = block(feats)
            if residual is not None:
                feats = feats + residual
            output = output + skip
        output = self.mask_activate(self.output_conv(self.output_prelu(output)))
        return output.view(batch_size, self.num_sources, self.input_dim, -1)


class ConvTasNet(nn.Module):
    """Conv-TasNet: ``decoder(mask_s * encoder(x))`` for each source ``s``.

    Args:
        num_sources: number of sources.
        enc_kernel_size: encoder/decoder kernel <L> (stride ``L // 2``).
        enc_num_feats: encoder channels <N>.
        msk_kernel_size: mask generator kernel <P>.
        msk_num_feats: block input/output channels <B, Sc>.
        msk_num_hidden_feats: block hidden channels <H>.
        msk_num_layers: blocks per stack <X>.
        msk_num_stacks: number of stacks <R>.
        msk_activate: mask activation, ``"sigmoid"`` or ``"relu"``.
    """

    def __init__(
        self,
        num_sources: int = 2,
        enc_kernel_size: int = 16,
        enc_num_feats: int = 512,
        msk_kernel_size: int = 3,
        msk_num_feats: int = 128,
        msk_num_hidden_feats: int = 512,
        msk_num_layers: int = 8,
        msk_num_stacks: int = 3,
        msk_activate: str = "sigmoid",
    ) -> None:
        super().__init__()
        self.num_sources = num_sources
        self.enc_num_feats = enc_num_feats
        self.enc_kernel_size = enc_kernel_size
        self.enc_stride = enc_kernel_size // 2
        stride = self.enc_stride
        self.encoder = nn.Conv1d(
            1, enc_num_feats, enc_kernel_size, stride=stride, padding=stride, bias=False
        )
        self.mask_generator = MaskGenerator(
            input_dim=enc_num_feats,
            num_sources=num_sources,
            kernel_size=msk_kernel_size,
            num_feats=msk_num_feats,
            num_hidden=msk_num_hidden_feats,
            num_layers=msk_num_layers,
            num_stacks=msk_num_stacks,
            msk_activate=msk_activate,
        )
        self.decoder = nn.ConvTranspose1d(
            enc_num_feats, 1, enc_kernel_size, stride=stride, padding=stride, bias=False
        )

    def _align_num_frames_with_strides(self, input: Tensor) -> tuple[Tensor, int]:
        """Zero-pad the end of ``input`` so that its length minus ``kernel % 2`` is a
        multiple of the stride; returns the padded tensor and the number of zeros added."""
        batch_size, num_channels, num_frames = input.shape
        is_odd = self.enc_kernel_size % 2
        remainder = (num_frames - is_odd) % self.enc_stride
        if remainder == 0:
            return input, 0
        num_paddings = self.enc_stride - remainder
        pad = chainrule.zeros(
            batch_size, num_channels, num_paddings, dtype=input.dtype, device=input.device
        )
        return chainrule.cat([input, pad], 2), num_paddings

    def forward(self, input: Tensor) -> Tensor:
        """Source waveforms ``(batch, num_sources, frames)`` of ``input`` ``(batch, 1, frames)``."""
        if input.ndim != 3 or input.shape[1] != 1:
            raise ValueError(
                f"Expected 3D tensor (batch, channel==1, frames). Found: {input.shape}"
            )
        padded, num_pads = self._align_num_frames_with_strides(input)
        batch_size, num_padded_frames = padded.shape[0], padded.shape[2]
        feats = self.encoder(padded)
        masked = self.mask_generator(feats) * feats.unsqueeze(1)
        masked = masked.view(batch_size * self.num_sources, self.enc_num_feats, -1)
        output = self.decoder(masked).view(batch_size, self.num_sources, num_padded_frames)
        if num_pads > 0:
            output = output[..., :-num_pads]
        return output


def conv_tasnet_base(num_sources: int = 2) -> ConvTasNet:
    """The non-causal Conv-TasNet with the paper's best settings (L=16, N=512, P=3,
    B=Sc=128, H=512, X=8, R=3), with a ReLU mask activation."""
    return ConvTasNet(
        num_sources=num_sources,
        enc_kernel_size=16,
        enc_num_feats=512,
        msk_kernel_size=3,
        msk_num_feats=128,
        msk_num_hidden_feats=512,
        msk_num_layers=8,
        msk_num_stacks=3,
        msk_activate="relu",
    )
