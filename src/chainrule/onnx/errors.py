"""``torch.onnx.errors``: the exceptions the exporter raises."""

from __future__ import annotations

__all__ = [
    "OnnxExporterError",
    "OnnxExporterWarning",
    "SymbolicValueError",
    "UnsupportedOperatorError",
]


class OnnxExporterWarning(UserWarning):
    """A warning from the ONNX exporter."""


class OnnxExporterError(RuntimeError):
    """An error raised by the ONNX exporter."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operator the exporter has no ONNX translation for."""

    def __init__(self, name: str, version: int, supported_version: int | None) -> None:
        if supported_version is not None:
            msg = (
                f"Exporting the operator '{name}' to ONNX opset version {version} is not "
                f"supported. Support for this operator was added in version "
                f"{supported_version}, try exporting with this version"
            )
        elif name.startswith(("aten::", "prim::", "quantized::")):
            msg = (
                f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
            )
        else:
            msg = (
                f"ONNX export failed on an operator with unrecognized namespace {name}. "
                "If you are trying to export a custom operator, make sure you registered it "
                "with the right domain and version."
            )
        super().__init__(msg)


class SymbolicValueError(OnnxExporterError):
    """An error about a value in the graph being exported."""

    def __init__(self, msg: str, value: object = None) -> None:
        super().__init__(msg)
