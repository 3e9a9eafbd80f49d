"""The captum cases of test_captum.py, run once per side.

``python captum_cases.py OUT oracle`` runs every case on the real PyTorch: it saves the
models' initial weights to ``OUT/captum_weights.pt`` and the results to
``OUT/captum_oracle.npz``. ``chainrule run captum_cases.py OUT chainrule`` loads those
weights, runs the same cases and writes ``OUT/captum_chainrule.npz``. TCAV keeps its
activations and concept vectors under ``OUT/<side>_cav/``; chainrule's side also reads the
oracle's. The models (an MLP, a small CNN, an embedding+LSTM and an embedding+transformer
text model) run in float64, and the inputs come from NumPy's seeded generator. What captum
draws from NumPy's generator (GradientShap's baselines and scales) is seeded the same on
both sides; what it draws from ``torch``'s (NoiseTunnel's noise, ShapleyValueSampling's
permutations, KernelShap's and Lime's samples, PGD's random start) is PyTorch's for the
same seed: those cases put the seeded results, what does not depend on the draws (a zero
noise, the efficiency of Shapley values, exact recovery of a linear model) and that a
seeded run repeats itself. A case that raises records its traceback in ``OUT/captum_<side>_errors.json``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import numpy as np
import torch
from captum._utils.models.linear_model import SkLearnLinearRegression
from captum._utils.sample_gradient import SampleGradientWrapper
from captum.attr import (
    LRP,
    Deconvolution,
    DeepLift,
    DeepLiftShap,
    FeatureAblation,
    FeaturePermutation,
    GradientShap,
    GuidedBackprop,
    GuidedGradCam,
    InputXGradient,
    IntegratedGradients,
    InternalInfluence,
    KernelShap,
    LayerActivation,
    LayerAttribution,
    LayerConductance,
    LayerDeepLift,
    LayerFeatureAblation,
    LayerGradCam,
    LayerGradientShap,
    LayerGradientXActivation,
    LayerIntegratedGradients,
    LayerLRP,
    Lime,
    NeuronConductance,
    NeuronDeepLift,
    NeuronFeatureAblation,
    NeuronGradient,
    NeuronGuidedBackprop,
    NeuronIntegratedGradients,
    NoiseTunnel,
    Occlusion,
    Saliency,
    ShapleyValues,
    ShapleyValueSampling,
    TokenReferenceBase,
    configure_interpretable_embedding_layer,
    remove_interpretable_embedding_layer,
)
from captum.concept import CAV, TCAV, Concept
from captum.concept._utils.classifier import Classifier
from captum.metrics import infidelity, sensitivity_max
from captum.module import BinaryConcreteStochasticGates, GaussianStochasticGates
from captum.robust import FGSM, PGD, AttackComparator, MinParamPerturbation
from case_inputs import Weights
from case_runner import Cases
from torch import nn
from torch.utils.data import DataLoader

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/captum_weights.pt", ORACLE)
CASES = Cases()
case = CASES.case

F64 = torch.float64
RNG = np.random.RandomState(0)
X_TAB = torch.tensor(RNG.randn(5, 6), dtype=F64)
BASE_TAB = torch.tensor(RNG.randn(6, 6) * 0.3, dtype=F64)  # a baseline distribution
X_IMG = torch.tensor(RNG.randn(3, 2, 10, 10), dtype=F64)
BASE_IMG = torch.tensor(RNG.randn(4, 2, 10, 10) * 0.2, dtype=F64)
IDS = torch.tensor(RNG.randint(1, 20, size=(3, 7)), dtype=torch.int64)
IDS[0, 5:] = 0  # padding


def put(name: str, value: object) -> None:
    """File ``value``; a tuple or list of tensors (attributions of several inputs or
    layers) as one key per tensor."""
    if isinstance(value, tuple | list) and value and isinstance(value[0], torch.Tensor):
        for i, v in enumerate(value):
            put(f"{name}.{i}", v)
        return
    CASES.put(name, value)


class MLP(nn.Module):
    """Six features to three classes, with ReLU modules (DeepLift and LRP hook them)."""

    def __init__(self, act: type[nn.Module] = nn.ReLU, softmax: bool = False) -> None:
        super().__init__()
        self.l1 = nn.Linear(6, 8)
        self.a1 = act()
        self.l2 = nn.Linear(8, 8)
        self.a2 = act()
        self.l3 = nn.Linear(8, 3)
        self.out = nn.Softmax(dim=1) if softmax else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l3(self.a2(self.l2(self.a1(self.l1(x)))))
        return h if self.out is None else self.out(h)


class CNN(nn.Module):
    """Two conv blocks (ReLU, max-pool) and two linear layers: 2x10x10 images, 4 classes."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.relu2 = nn.ReLU()
        self.fc1 = nn.Linear(54, 10)
        self.relu3 = nn.ReLU()
        self.fc2 = nn.Linear(10, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.relu2(self.conv2(self.pool1(self.relu1(self.conv1(x)))))
        return self.fc2(self.relu3(self.fc1(h.flatten(1))))


class TextLSTM(nn.Module):
    """Token ids to two classes through an embedding and an LSTM's last hidden state."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(20, 8, padding_idx=0)
        self.lstm = nn.LSTM(8, 6, batch_first=True)
        self.fc = nn.Linear(6, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        _, (h, _) = self.lstm(self.emb(ids))
        return self.fc(h[-1])


class TextTransformer(nn.Module):
    """Token ids to two classes through an embedding, one encoder layer and mean pooling."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(20, 8, padding_idx=0)
        self.enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.fc = nn.Linear(8, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.fc(self.enc(self.emb(ids)).mean(1))


def model(key: str, make: Callable[[], nn.Module]) -> nn.Module:
    """A float64 model in eval mode holding the weights the oracle drew for ``key``."""
    return WEIGHTS.module(key, lambda: make().double()).eval()


def mlp() -> nn.Module:
    return model("mlp", MLP)


def cnn() -> nn.Module:
    return model("cnn", CNN)


def linear() -> nn.Module:
    return model("linear", lambda: nn.Linear(6, 3))


@case
def integrated_gradients() -> None:
    net = mlp()
    ig = IntegratedGradients(net)
    attr, delta = ig.attribute(X_TAB, target=1, n_steps=40, return_convergence_delta=True)
    put("ig.attr", attr)
    put("ig.delta", delta)
    for method in ("riemann_left", "riemann_trapezoid"):
        a = ig.attribute(X_TAB, BASE_TAB[:1], target=2, n_steps=16, method=method)
        put(f"ig.{method}", a)
    # a batch of targets, chunked evaluation and an additional forward argument
    ig2 = IntegratedGradients(lambda x, scale: net(x * scale))
    a = ig2.attribute(
        X_TAB,
        target=[0, 1, 2, 0, 1],
        additional_forward_args=(0.5,),
        internal_batch_size=7,
        n_steps=20,
    )
    put("ig.chunked", a)
    put("ig.global", IntegratedGradients(net, multiply_by_inputs=False).attribute(X_TAB, target=0))
    # two inputs
    ig3 = IntegratedGradients(lambda a, b: net(a + 2 * b))
    put("ig.two_inputs", ig3.attribute((X_TAB, X_TAB * 0.1), target=1, n_steps=10))


@case
def saliency_and_input_x_gradient() -> None:
    net, conv = mlp(), cnn()
    put("sal.abs", Saliency(net).attribute(X_TAB, target=2))
    put("sal.signed", Saliency(net).attribute(X_TAB, target=2, abs=False))
    put("sal.cnn", Saliency(conv).attribute(X_IMG, target=torch.tensor([0, 3, 1])))
    put("ixg.mlp", InputXGradient(net).attribute(X_TAB, target=0))
    put("ixg.cnn", InputXGradient(conv).attribute(X_IMG, target=2))
    x = X_TAB.clone().requires_grad_()
    put("sal.requires_grad_kept", Saliency(net).attribute(x, target=1))
    put("sal.input_still_requires_grad", x.requires_grad)
    # captum turns requires_grad on for the attribution and back off afterwards
    y = X_TAB.clone()
    put("ixg.plain_input", InputXGradient(net).attribute(y, target=1))
    put("ixg.input_requires_grad_after", y.requires_grad)
    put("ixg.input_grad_after", y.grad is None)


@case
def deeplift() -> None:
    net = mlp()
    attr, delta = DeepLift(net).attribute(
        X_TAB, BASE_TAB[:1], target=1, return_convergence_delta=True
    )
    put("dl.mlp", attr)
    put("dl.mlp.delta", delta)
    put("dl.rescale_global", DeepLift(net, multiply_by_inputs=False).attribute(X_TAB, target=0))
    attr, delta = DeepLift(cnn()).attribute(X_IMG, target=3, return_convergence_delta=True)
    put("dl.cnn", attr)
    put("dl.cnn.delta", delta)
    acts = (("tanh", nn.Tanh, False), ("sigmoid", nn.Sigmoid, True), ("elu", nn.ELU, False))
    for name, act, softmax in acts:
        smooth = model(f"mlp_{name}", lambda act=act, softmax=softmax: MLP(act, softmax))
        attr, delta = DeepLift(smooth).attribute(
            X_TAB, BASE_TAB[:1], target=2, return_convergence_delta=True
        )
        put(f"dl.{name}", attr)
        put(f"dl.{name}.delta", delta)


@case
def deeplift_shap() -> None:
    attr, delta = DeepLiftShap(mlp()).attribute(
        X_TAB, BASE_TAB, target=0, return_convergence_delta=True
    )
    put("dls.mlp", attr)
    put("dls.mlp.delta", delta)
    put("dls.cnn", DeepLiftShap(cnn()).attribute(X_IMG, BASE_IMG, target=1))


@case
def gradient_shap() -> None:
    # GradientShap draws the baselines and the scales from NumPy's generator: seeded alike
    net = mlp()
    np.random.seed(3)
    attr, delta = GradientShap(net).attribute(
        X_TAB, BASE_TAB, n_samples=8, target=1, return_convergence_delta=True
    )
    put("gs.attr", attr)
    put("gs.delta", delta)
    np.random.seed(4)
    put("gs.cnn", GradientShap(cnn()).attribute(X_IMG, BASE_IMG, n_samples=3, target=2))
    np.random.seed(5)
    lgs = LayerGradientShap(net, net.l2)
    put("gs.layer", lgs.attribute(X_TAB, BASE_TAB, n_samples=4, target=0))


@case
def guided_backprop_and_deconvolution() -> None:
    conv = cnn()
    put("gbp.cnn", GuidedBackprop(conv).attribute(X_IMG, target=0))
    put("deconv.cnn", Deconvolution(conv).attribute(X_IMG, target=2))
    put("gbp.mlp", GuidedBackprop(mlp()).attribute(X_TAB, target=1))
    put("ngbp", NeuronGuidedBackprop(conv, conv.fc1).attribute(X_IMG, neuron_selector=3))
    # the hooks are gone afterwards: plain gradients again
    x = X_IMG.clone().requires_grad_()
    conv(x)[:, 0].sum().backward()
    put("gbp.after.grad", x.grad)


@case
def grad_cam() -> None:
    conv = cnn()
    cam = LayerGradCam(conv, conv.conv2).attribute(X_IMG, target=1)
    put("gradcam", cam)
    put("gradcam.relu", LayerGradCam(conv, conv.conv2).attribute(X_IMG, 1, relu_attributions=True))
    put("gradcam.up", LayerAttribution.interpolate(cam, (10, 10)))
    put("gradcam.up_bilinear", LayerAttribution.interpolate(cam, (10, 10), "bilinear"))
    put("guided_gradcam", GuidedGradCam(conv, conv.conv2).attribute(X_IMG, target=3))


@case
def layer_methods() -> None:
    conv, net = cnn(), mlp()
    put("lact", LayerActivation(conv, conv.conv2).attribute(X_IMG))
    both = LayerActivation(net, [net.l1, net.l2]).attribute(X_TAB)
    put("lact.list", both)
    put("lact.input", LayerActivation(net, net.l2).attribute(X_TAB, attribute_to_layer_input=True))
    attr, delta = LayerConductance(net, net.l2).attribute(
        X_TAB, target=1, n_steps=30, return_convergence_delta=True
    )
    put("lcond", attr)
    put("lcond.delta", delta)
    put("lcond.cnn", LayerConductance(conv, conv.conv1).attribute(X_IMG, target=0, n_steps=8))
    put("lgxa", LayerGradientXActivation(conv, conv.conv2).attribute(X_IMG, target=2))
    put("linf", InternalInfluence(net, net.l1).attribute(X_TAB, target=0, n_steps=12))
    attr, delta = LayerDeepLift(net, net.l2).attribute(
        X_TAB, BASE_TAB[:1], target=2, return_convergence_delta=True
    )
    put("ldl", attr)
    put("ldl.delta", delta)
    put("lfa", LayerFeatureAblation(net, net.l1).attribute(X_TAB, target=1))
    lig = LayerIntegratedGradients(net, net.l1)
    put("lig.mlp", lig.attribute(X_TAB, target=0, n_steps=16))


@case
def neuron_methods() -> None:
    conv, net = cnn(), mlp()
    put("ncond", NeuronConductance(net, net.l2).attribute(X_TAB, 3, target=1, n_steps=20))
    put("nig", NeuronIntegratedGradients(net, net.l2).attribute(X_TAB, 5, n_steps=20))
    put("nig.cnn", NeuronIntegratedGradients(conv, conv.conv2).attribute(X_IMG, (1, 0, 2)))
    put("ngrad", NeuronGradient(conv, conv.conv1).attribute(X_IMG, (2, 4, 4)))
    put("ndl", NeuronDeepLift(net, net.l2).attribute(X_TAB, 1, BASE_TAB[:1]))
    put("nfa", NeuronFeatureAblation(net, net.l1).attribute(X_TAB, 0))
    # a neuron selector that sums a slice
    summed = NeuronIntegratedGradients(net, net.l1).attribute(X_TAB, lambda out: out[:, 2:5].sum(1))
    put("nig.callable", summed)


@case
def text_models() -> None:
    lstm = model("lstm", TextLSTM)
    ref = TokenReferenceBase(reference_token_idx=0).generate_reference(7, device="cpu")
    ref = ref.unsqueeze(0).expand(3, 7)
    lig = LayerIntegratedGradients(lstm, lstm.emb)
    attr, delta = lig.attribute(IDS, ref, target=1, n_steps=20, return_convergence_delta=True)
    put("text.lstm.lig", attr)
    put("text.lstm.delta", delta)
    put("text.lstm.tokens", attr.sum(-1))
    put("text.lstm.lgxa", LayerGradientXActivation(lstm, lstm.fc).attribute(IDS, target=0))
    enc = model("transformer", TextTransformer)
    lig = LayerIntegratedGradients(enc, enc.emb)
    put("text.tf.lig", lig.attribute(IDS, ref, target=0, n_steps=12))
    put("text.tf.lact", LayerActivation(enc, enc.enc.linear1).attribute(IDS))
    # swapping the embedding layer for captum's interpretable one, then IG on embeddings
    emb = configure_interpretable_embedding_layer(lstm, "emb")
    inputs, base = emb.indices_to_embeddings(IDS), emb.indices_to_embeddings(ref)
    attr = IntegratedGradients(lstm).attribute(inputs, base, target=1, n_steps=20)
    remove_interpretable_embedding_layer(lstm, emb)
    put("text.lstm.ig_embeddings", attr)
    put("text.lstm.restored", lstm(IDS))


@case
def perturbation_methods() -> None:
    conv, net = cnn(), mlp()
    occ = Occlusion(conv)
    put("occ", occ.attribute(X_IMG, (1, 3, 3), strides=(1, 2, 2), target=1))
    put("occ.baseline", occ.attribute(X_IMG, (2, 4, 4), strides=3, target=0, baselines=0.5))
    mask = torch.tensor([[0, 0, 1, 1, 2, 2]])
    fa = FeatureAblation(net)
    put("fa", fa.attribute(X_TAB, target=2))
    put("fa.mask", fa.attribute(X_TAB, target=2, feature_mask=mask, perturbations_per_eval=2))
    img_mask = torch.arange(4).repeat_interleave(25).reshape(1, 1, 10, 10).expand(1, 2, 10, 10)
    put("fa.img", FeatureAblation(conv).attribute(X_IMG, target=1, feature_mask=img_mask))
    put("sv.exact", ShapleyValues(net).attribute(X_TAB, target=1, feature_mask=mask))
    put("sv.exact.base", ShapleyValues(net).attribute(X_TAB, BASE_TAB[:1], target=0))


@case
def sampled_shapley_and_permutation() -> None:
    # the permutations come from torch's generator: compare the efficiency of Shapley
    # values (each permutation's attributions sum to f(x) - f(baseline)) and the exact
    # values of a linear model, which do not depend on the draws
    net, lin = mlp(), linear()
    torch.manual_seed(0)
    attr = ShapleyValueSampling(net).attribute(X_TAB, BASE_TAB[:1], target=1, n_samples=5)
    put("svs.sum", attr.sum(1))
    put("svs.linear", ShapleyValueSampling(lin).attribute(X_TAB, target=2, n_samples=3))
    torch.manual_seed(0)
    again = ShapleyValueSampling(net).attribute(X_TAB, BASE_TAB[:1], target=1, n_samples=5)
    put("svs.seeded_repeats", torch.equal(attr, again))
    put("svs.seeded", attr)  # (PyTorch's permutations for the same seed)
    # FeaturePermutation permutes the batch: a feature constant over the batch gets 0
    x = X_TAB.clone()
    x[:, 3] = 0.7
    torch.manual_seed(1)
    perm = FeaturePermutation(net).attribute(x, target=0)
    put("fp.shape", perm.shape)
    put("fp.constant_feature", perm[:, 3])


@case
def lime_and_kernel_shap() -> None:
    # on a linear model both recover w * (x - baseline) exactly, whatever the samples
    lin = linear()
    w = WEIGHTS["linear"]["weight"].to(F64)
    torch.manual_seed(0)
    ks = KernelShap(lin).attribute(X_TAB[:2], BASE_TAB[:1], target=1, n_samples=60)
    put("ks.linear", ks)
    put("ks.expected", w[1] * (X_TAB[:2] - BASE_TAB[:1]))

    # Lime with captum's least-squares surrogate and a deterministic sampler: comparable
    def perturb(x: torch.Tensor, **kwargs: object) -> torch.Tensor:
        n = perturb.count
        perturb.count += 1
        bits = [((n * 7 + 3) >> i) & 1 for i in range(6)]  # the binary digits of 7n + 3
        return torch.tensor([bits], dtype=torch.long)

    perturb.count = 0
    lime = Lime(mlp(), SkLearnLinearRegression(), perturb_func=perturb)
    put("lime.mlp", lime.attribute(X_TAB[:1], BASE_TAB[:1], target=0, n_samples=40))
    torch.manual_seed(0)
    put("lime.linear", Lime(lin, SkLearnLinearRegression()).attribute(X_TAB[:1], target=2))


@case
def noise_tunnel() -> None:
    # a zero noise: every draw is the input itself
    net = mlp()
    nt = NoiseTunnel(IntegratedGradients(net))
    for kind in ("smoothgrad", "smoothgrad_sq", "vargrad"):
        torch.manual_seed(0)
        a = nt.attribute(X_TAB, nt_type=kind, nt_samples=3, stdevs=0.0, target=1, n_steps=10)
        put(f"nt.{kind}", a)
    attr, delta = nt.attribute(
        X_TAB, nt_samples=2, stdevs=0.0, target=0, n_steps=10, return_convergence_delta=True
    )
    put("nt.delta", delta)
    # noisy saliency of a linear model: the gradient does not depend on the noise
    torch.manual_seed(0)
    put("nt.linear", NoiseTunnel(Saliency(linear())).attribute(X_TAB, nt_samples=4, target=2))
    torch.manual_seed(7)
    a = NoiseTunnel(Saliency(net)).attribute(X_TAB, nt_samples=4, stdevs=0.3, target=0)
    torch.manual_seed(7)
    b = NoiseTunnel(Saliency(net)).attribute(X_TAB, nt_samples=4, stdevs=0.3, target=0)
    put("nt.seeded_repeats", torch.equal(a, b))
    put("nt.seeded", a)  # (PyTorch's noise for the same seed)


@case
def lrp() -> None:
    net = mlp()
    attr, delta = LRP(net).attribute(X_TAB, target=1, return_convergence_delta=True)
    put("lrp", attr)
    put("lrp.delta", delta)
    put("lrp.layer", LayerLRP(net, net.l2).attribute(X_TAB, target=0))
    put("lrp.cnn", LRP(cnn()).attribute(X_IMG, target=2))


@case
def metrics() -> None:
    net = mlp()
    ig = IntegratedGradients(net)
    attr = ig.attribute(X_TAB, target=1, n_steps=20)
    step = [0]

    def perturb(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # deterministic perturbations: a different fixed pattern per call
        step[0] += 1
        noise = torch.sin(torch.arange(x.numel(), dtype=F64) * step[0]).reshape(x.shape) * 0.05
        return noise, x - noise

    put("infid", infidelity(net, perturb, X_TAB, attr, target=1, n_perturb_samples=6))
    step[0] = 0
    put("infid.norm", infidelity(net, perturb, X_TAB, attr, target=1, normalize=True))

    def shift(x: torch.Tensor, perturb_radius: float = 0.02) -> torch.Tensor:
        step[0] += 1
        return x + perturb_radius * torch.cos(torch.arange(x.numel(), dtype=F64) + step[0]).reshape(
            x.shape
        )

    step[0] = 0
    sens = sensitivity_max(Saliency(net).attribute, X_TAB, shift, n_perturb_samples=5, target=2)
    put("sens.saliency", sens)
    step[0] = 0
    sens = sensitivity_max(ig.attribute, X_TAB, shift, n_perturb_samples=3, target=0, n_steps=10)
    put("sens.ig", sens)


@case
def robust() -> None:
    conv, net = cnn(), mlp()
    fgsm = FGSM(conv, lower_bound=-2.0, upper_bound=2.0)
    put("fgsm", fgsm.perturb(X_IMG, epsilon=0.1, target=torch.tensor([0, 1, 2])))
    put("fgsm.targeted", fgsm.perturb(X_IMG, epsilon=0.05, target=3, targeted=True))
    pgd = PGD(net)
    adv = pgd.perturb(X_TAB, radius=0.3, step_size=0.05, step_num=6, target=1)
    put("pgd.linf", adv)
    adv = pgd.perturb(X_TAB, radius=0.5, step_size=0.1, step_num=5, target=0, norm="L2")
    put("pgd.l2", adv)
    put("pgd.logits", net(adv))
    torch.manual_seed(0)
    adv = pgd.perturb(X_TAB, radius=0.2, step_size=0.05, step_num=3, target=1, random_start=True)
    put("pgd.random_start.within", (adv - X_TAB).abs().max() <= 0.2 + 1e-12)
    put("pgd.random_start", adv)  # (PyTorch's start for the same seed)


@case
def robust_metrics() -> None:
    net = mlp()
    fgsm = FGSM(net)
    preds = net(X_TAB).argmax(1)
    mpp = MinParamPerturbation(net, fgsm, "epsilon", arg_min=0.0, arg_max=2.0, arg_step=0.05)
    adv, eps = mpp.evaluate(X_TAB[:1], target=preds[:1], attack_kwargs={"target": preds[:1]})
    put("mpp.eps", eps)
    put("mpp.adv", adv)
    mpp = MinParamPerturbation(
        net, fgsm, "epsilon", arg_min=0.0, arg_max=2.0, arg_step=0.05, mode="binary"
    )
    kw = {"target": preds[1:2]}
    put("mpp.binary.eps", mpp.evaluate(X_TAB[1:2], target=preds[1:2], attack_kwargs=kw)[1])

    def metric(out: torch.Tensor, target: torch.Tensor, **kwargs: object) -> torch.Tensor:
        return torch.softmax(out, 1)[torch.arange(out.shape[0]), target]

    comp = AttackComparator(net, metric)
    names = ["target"]  # (evaluate's target goes to the attacks as well as to the metric)
    comp.add_attack(fgsm, "fgsm", attack_kwargs={"epsilon": 0.2}, additional_attack_arg_names=names)
    pgd = {"radius": 0.3, "step_size": 0.1, "step_num": 3}
    comp.add_attack(PGD(net), "pgd", attack_kwargs=pgd, additional_attack_arg_names=names)
    comp.add_attack(lambda x, shift: x + shift, "shift", additional_attack_arg_names=["shift"])
    result = comp.evaluate(X_TAB, target=preds, shift=0.1)
    put("comparator.Original", result["Original"])
    for name in ("fgsm", "pgd", "shift"):
        put(f"comparator.{name}", result[name]["mean"])
    comp.evaluate(X_TAB[:2], target=preds[:2], shift=-0.2)
    summary = comp.summary()
    for name in ("Original", "fgsm", "shift"):
        put(f"comparator.summary.{name}", summary[name]["mean"])


@case
def stochastic_gates_and_sample_gradients() -> None:
    # the gates in eval mode use their distributions' means: no draws
    for key, make in (
        ("gates_concrete", lambda: BinaryConcreteStochasticGates(6, reg_weight=0.5)),
        ("gates_gauss", lambda: GaussianStochasticGates(6, std=0.3)),
    ):
        gates = model(key, make)
        x = X_TAB.clone().requires_grad_()
        gated, reg = gates(x)
        (gated.pow(2).sum() + reg).backward()
        put(f"{key}.gated", gated)
        put(f"{key}.reg", reg)
        put(f"{key}.x_grad", x.grad)
        put(f"{key}.param_grad", next(gates.parameters()).grad)
        put(f"{key}.values", gates.get_gate_values())
        put(f"{key}.probs", gates.get_gate_active_probs())
    # per-example parameter gradients from forward and backward hooks
    conv = cnn()
    wrapper = SampleGradientWrapper(conv)
    wrapper.add_hooks()
    out = conv(X_IMG.clone().requires_grad_())  # (captum hooks the first layer's input too)
    wrapper.compute_param_sample_gradients(out[:, 1] ** 2, loss_mode="sum")
    wrapper.remove_hooks()
    for name, p in conv.named_parameters():
        put(f"sample_grad.{name}", p.sample_grad)


class RidgeClassifier(Classifier):
    """A deterministic concept classifier for TCAV: ridge regression on one-hot labels,
    solved in closed form (captum's default draws from sklearn's and Python's generators)."""

    def __init__(self) -> None:
        self.w = torch.zeros(0)
        self.labels: list[int] = []

    def train_and_eval(self, dataloader: DataLoader, **kwargs: object) -> dict:
        xs, ys = zip(*dataloader)
        x, y = torch.cat(xs).to(F64), torch.cat(ys)
        self.labels = sorted(set(y.tolist()))
        onehot = (y[:, None] == torch.tensor(self.labels)[None]).to(F64)
        gram = x.T @ x + 0.1 * torch.eye(x.shape[1], dtype=F64)
        self.w = torch.linalg.solve(gram, x.T @ onehot)
        pred = torch.tensor(self.labels)[(x @ self.w).argmax(1)]
        return {"accs": (pred == y).to(F64).mean()}

    def weights(self) -> torch.Tensor:
        return self.w.T

    def classes(self) -> list[int]:
        return self.labels


@case
def tcav() -> None:
    # concepts: inputs shifted along different directions; CAVs and activations are
    # written with torch.save and read back with torch.load under each side's folder
    net = mlp()
    shifts = torch.tensor(RNG.randn(4, 6) * 1.5, dtype=F64)
    noise = torch.tensor(np.random.RandomState(7).randn(4, 12, 6) * 0.4, dtype=F64)
    concepts = [
        Concept(i, f"concept{i}", DataLoader(list(noise[i] + shifts[i]), batch_size=5))
        for i in range(4)
    ]
    path = f"{OUT}/{SIDE}_cav/"
    os.makedirs(path, exist_ok=True)
    tcav = TCAV(net, ["l1", "l2"], model_id="mlp", classifier=RidgeClassifier(), save_path=path)
    sets = [[concepts[0], concepts[1]], [concepts[0], concepts[2]], [concepts[3], concepts[1]]]
    scores = tcav.interpret(X_TAB, sets, target=1, processes=None)
    for key, layers in sorted(scores.items()):
        for layer, values in sorted(layers.items()):
            for name, value in sorted(values.items()):
                put(f"tcav.{key}.{layer}.{name}", value)
    for layer in ("l1", "l2"):  # a CAV file read back
        cav = CAV.load(path, "mlp", sets[2], layer)
        put(f"tcav.cav.{layer}.weights", cav.stats["weights"])
        put(f"tcav.cav.{layer}.accs", cav.stats["accs"])
        put(f"tcav.cav.{layer}.classes", cav.stats["classes"])
    # the oracle's CAV file (chainrule's torch.load reads what PyTorch's torch.save wrote)
    theirs = CAV.load(f"{OUT}/oracle_cav/", "mlp", sets[2], "l2")
    put("tcav.oracle_cav.l2.weights", theirs.stats["weights"])


def main() -> None:
    CASES.run(f"{OUT}/captum_{SIDE}")
    WEIGHTS.save()


main()
