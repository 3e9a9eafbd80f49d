"""Dynamic quantization of a tiny BERT (transformers), as the PyTorch tutorial does it, run
by test_quantized_bert.py on both sides: ``python bert_quant_script.py OUT WEIGHTS save``
(real PyTorch: builds the model, saves its weights) and ``chainrule run
bert_quant_script.py OUT WEIGHTS load`` (loads them); each writes its float and quantized
outputs to OUT."""

import sys
import warnings

if sys.argv[3] == "save":
    # the real torchvision of this environment fails to import against the real torch;
    # transformers' text models do not need it
    sys.modules["torchvision"] = None  # type: ignore[assignment]

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import BertConfig, BertModel  # noqa: E402

warnings.simplefilter("ignore")
out, weights = sys.argv[1], sys.argv[2]
config = BertConfig(
    vocab_size=100,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=64,
    max_position_embeddings=64,
)
model = BertModel(config).eval()
if sys.argv[3] == "save":
    torch.save(model.state_dict(), weights)
else:
    model.load_state_dict(torch.load(weights))
quantized = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
ids = torch.from_numpy(np.random.default_rng(0).integers(0, 100, (2, 12)))
with torch.no_grad():
    float_out = model(input_ids=ids).last_hidden_state.numpy()
    quant_out = quantized(input_ids=ids).last_hidden_state.numpy()
layer = quantized.encoder.layer[0]
np.savez(
    out,
    float=float_out,
    quant=quant_out,
    text=np.array(repr(layer.attention.self.query) + repr(layer.output.dense)),
    ints=layer.intermediate.dense.weight().int_repr().numpy(),
)
