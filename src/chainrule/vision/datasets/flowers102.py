"""Oxford 102 Flowers, read from ``root/flowers-102`` (``jpg/image_#####.jpg`` with the
labels and split ids in ``imagelabels.mat`` and ``setid.mat``, loaded with scipy)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .folder import default_loader
from .utils import check_integrity, download_and_extract_archive, download_url, verify_str_arg
from .vision import VisionDataset

__all__ = ["Flowers102"]

# the 102 class names, in label order (data)
_CLASSES = (
    "pink primrose|hard-leaved pocket orchid|canterbury bells|sweet pea|english marigold|tiger lily|moon orchid|"
    "bird of paradise|monkshood|globe thistle|snapdragon|colt's foot|king protea|spear thistle|yellow iris|"
    "globe-flower|purple coneflower|peruvian lily|balloon flower|giant white arum lily|fire lily|"
    "pincushion flower|fritillary|red ginger|grape hyacinth|corn poppy|prince of wales feathers|"
    "stemless gentian|artichoke|sweet william|carnation|garden phlox|love in the mist|mexican aster|"
    "alpine sea holly|ruby-lipped cattleya|cape flower|great masterwort|siam tulip|lenten rose|barbeton daisy|"
    "daffodil|sword lily|poinsettia|bolero deep blue|wallflower|marigold|buttercup|oxeye daisy|"
    "common dandelion|petunia|wild pansy|primula|sunflower|pelargonium|bishop of llandaff|gaura|geranium|"
    "orange dahlia|pink-yellow dahlia?|cautleya spicata|japanese anemone|black-eyed susan|silverbush|"
    "californian poppy|osteospermum|spring crocus|bearded iris|windflower|tree poppy|gazania|azalea|"
    "water lily|rose|thorn apple|morning glory|passion flower|lotus|toad lily|anthurium|frangipani|clematis|"
    "hibiscus|columbine|desert-rose|tree mallow|magnolia|cyclamen|watercress|canna lily|hippeastrum|"
    "bee balm|ball moss|foxglove|bougainvillea|camellia|mallow|mexican petunia|bromelia|blanket flower|"
    "trumpet creeper|blackberry lily"
).split("|")


class Flowers102(VisionDataset):
    """Oxford 102 Flowers ``split`` ``'train'``, ``'val'`` or ``'test'``; items are
    ``(loader(path), int label)`` with labels 0-based."""

    _download_url_prefix = "https://www.robots.ox.ac.uk/~vgg/data/flowers/102/"
    _file_dict = {
        "image": ("102flowers.tgz", "52808999861908f626f3c1f4e79d11fa"),
        "label": ("imagelabels.mat", "e0620be6f572b9609742df49c70aed4d"),
        "setid": ("setid.mat", "a5357ecc9cb78c4bef273ce3793fc85c"),
    }
    _splits_map = {"train": "trnid", "val": "valid", "test": "tstid"}
    classes = _CLASSES

    def __init__(
        self,
        root: str | Path,
        split: str = "train",
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
        loader: Callable[[str | Path], Any] = default_loader,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = verify_str_arg(split, "split", ("train", "val", "test"))
        self._base_folder = Path(self.root) / "flowers-102"
        self._images_folder = self._base_folder / "jpg"
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        from scipy.io import loadmat

        image_ids = loadmat(self._base_folder / self._file_dict["setid"][0], squeeze_me=True)[
            self._splits_map[self._split]
        ].tolist()
        labels = (
            loadmat(self._base_folder / self._file_dict["label"][0], squeeze_me=True)["labels"] - 1
        )
        label_of = dict(enumerate(labels.tolist(), 1))  # image ids count from 1
        self._labels = [label_of[i] for i in image_ids]
        self._image_files = [self._images_folder / f"image_{i:05d}.jpg" for i in image_ids]
        self.loader = loader

    def __len__(self) -> int:
        return len(self._image_files)

    def __getitem__(self, idx: int) -> tuple[Any, Any]:
        image, label = self.loader(self._image_files[idx]), self._labels[idx]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label

    def extra_repr(self) -> str:
        return f"split={self._split}"

    def _check_integrity(self) -> bool:
        if not self._images_folder.is_dir():
            return False
        return all(
            check_integrity(
                str(self._base_folder / self._file_dict[key][0]), self._file_dict[key][1]
            )
            for key in ("label", "setid")
        )

    def download(self) -> None:
        """Fetch and unpack the images, then the two ``.mat`` files (all MD5-checked)."""
        if self._check_integrity():
            return
        name, md5 = self._file_dict["image"]
        download_and_extract_archive(
            f"{self._download_url_prefix}{name}", str(self._base_folder), md5=md5
        )
        for key in ("label", "setid"):
            name, md5 = self._file_dict[key]
            download_url(self._download_url_prefix + name, str(self._base_folder), md5=md5)
