"""pycompile.dataset: data pipelines shaped like mindspore.dataset (`import pycompile.dataset as ds`).

Sources: GeneratorDataset, NumpySlicesDataset, MnistDataset, FashionMnistDataset, Cifar10Dataset,
Cifar100Dataset, KMnistDataset, EMnistDataset, ImageFolderDataset, CSVDataset, TextFileDataset, MindDataset,
VOCDataset, CocoDataset, CelebADataset, TFRecordDataset, PaddedDataset, RandomDataset, FakeImageDataset (and
Schema); the named text, audio and image datasets read from their archives' layouts (named_text.py,
named_audio.py, named_images.py: AGNewsDataset ... YesNoDataset ... STL10Dataset); the samplers (`sampler=` on each
source). Operations: batch, shuffle, map, repeat, take, skip, project, rename, concat (+), zip, filter, apply. Iterators run the pipeline in a
background thread and yield pycompile Tensors. `config` holds the seed and prefetch size;
`transforms`, `vision` and `text` hold the transforms for `map`.
"""
from pycompile.dataset import config  # noqa: F401
from pycompile.dataset.callbacks import DSCallback  # noqa: F401
from pycompile.dataset.cache import DatasetCache  # noqa: F401
from pycompile.dataset.annotated_sources import CelebADataset, CocoDataset, VOCDataset  # noqa: F401
from pycompile.dataset import text, transforms, vision  # noqa: F401
from pycompile.dataset.datasets import Dataset  # noqa: F401
from pycompile.dataset.combine import zip_datasets as zip  # noqa: F401,A001
from pycompile.dataset.file_sources import (CSVDataset, ImageFolderDataset, Shuffle,  # noqa: F401
                                            TextFileDataset)
from pycompile.dataset.iterators import DictIterator, TupleIterator  # noqa: F401
from pycompile.dataset.mind_dataset import MindDataset  # noqa: F401
from pycompile.dataset.named_audio import (CMUArcticDataset, GTZANDataset, LibriTTSDataset,  # noqa: F401
                                           LJSpeechDataset, SpeechCommandsDataset, TedliumDataset,
                                           YesNoDataset)
from pycompile.dataset.named_images import (Caltech101Dataset, Caltech256Dataset, Food101Dataset,  # noqa: F401
                                            LFWDataset, SemeionDataset, STL10Dataset, USPSDataset)
from pycompile.dataset.lsun import LSUNDataset  # noqa: F401
from pycompile.dataset.named_more import (CLUEDataset, Flowers102Dataset, IWSLT2016Dataset,  # noqa: F401
                                          IWSLT2017Dataset, ManifestDataset, SBDataset, SVHNDataset)
from pycompile.dataset.named_more2 import (CityscapesDataset, DIV2KDataset, FlickrDataset,  # noqa: F401
                                           KITTIDataset, OmniglotDataset, PhotoTourDataset, Places365Dataset,
                                           RenderedSST2Dataset, SBUDataset, SUN397Dataset, WIDERFaceDataset)
from pycompile.dataset.named_text import (AGNewsDataset, AmazonReviewDataset, CoNLL2000Dataset,  # noqa: F401
                                          DBpediaDataset, EnWik9Dataset, IMDBDataset, Multi30kDataset,
                                          PennTreebankDataset, SogouNewsDataset, SQuADDataset, SST2Dataset,
                                          UDPOSDataset, WikiTextDataset, YahooAnswersDataset, YelpReviewDataset)
from pycompile.dataset.samplers import (DistributedSampler, PKSampler, RandomSampler, Sampler,  # noqa: F401
                                        SequentialSampler, SubsetRandomSampler, SubsetSampler,
                                        WeightedRandomSampler)
from pycompile.dataset.sources import GeneratorDataset, NumpySlicesDataset, PaddedDataset  # noqa: F401
from pycompile.dataset.schema_sources import FakeImageDataset, RandomDataset, Schema  # noqa: F401
from pycompile.dataset.tfrecord import TFRecordDataset  # noqa: F401
from pycompile.dataset.vision_sources import (Cifar10Dataset, Cifar100Dataset, EMnistDataset,  # noqa: F401
                                             FashionMnistDataset, KMnistDataset, MnistDataset, QMnistDataset)
from pycompile.dataset.serialization import compare, deserialize, serialize, show  # noqa: F401
from pycompile.dataset.obs_sync import sync_wait_for_dataset  # noqa: F401

__all__ = ["config", "text", "transforms", "vision", "Dataset", "GeneratorDataset", "NumpySlicesDataset", "MnistDataset",
           "FashionMnistDataset", "Cifar10Dataset", "Cifar100Dataset", "ImageFolderDataset", "CSVDataset",
           "TextFileDataset", "MindDataset", "Shuffle", "TupleIterator", "DictIterator",
           "DistributedSampler", "PKSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "SubsetSampler", "WeightedRandomSampler", "zip", "VOCDataset", "CocoDataset", "CelebADataset",
           "TFRecordDataset", "KMnistDataset", "EMnistDataset", "PaddedDataset", "Schema", "RandomDataset",
           "FakeImageDataset", "DSCallback", "QMnistDataset",
           # named text datasets (named_text.py)
           "AGNewsDataset", "AmazonReviewDataset", "CoNLL2000Dataset", "DBpediaDataset", "EnWik9Dataset",
           "IMDBDataset", "Multi30kDataset", "PennTreebankDataset", "SogouNewsDataset", "SQuADDataset",
           "SST2Dataset", "UDPOSDataset", "WikiTextDataset", "YahooAnswersDataset", "YelpReviewDataset",
           # named audio datasets (named_audio.py)
           "CMUArcticDataset", "GTZANDataset", "LibriTTSDataset", "LJSpeechDataset", "SpeechCommandsDataset",
           "TedliumDataset", "YesNoDataset",
           # named image datasets (named_images.py)
           "Caltech101Dataset", "Caltech256Dataset", "Food101Dataset", "LFWDataset", "SemeionDataset",
           "STL10Dataset", "USPSDataset", "LSUNDataset",
           # more named datasets (named_more.py)
           "CLUEDataset", "ManifestDataset", "IWSLT2016Dataset", "IWSLT2017Dataset", "Flowers102Dataset",
           "SVHNDataset", "SBDataset", "OmniglotDataset", "SBUDataset", "SUN397Dataset", "RenderedSST2Dataset",
           "Places365Dataset", "PhotoTourDataset", "DIV2KDataset", "FlickrDataset",
           "WIDERFaceDataset", "KITTIDataset", "CityscapesDataset"]
__all__ += ["serialize", "deserialize", "show", "compare", "WaitedDSCallback",  # serialization.py, train/callback,
            "sync_wait_for_dataset",                                             # obs_sync.py
            "DatasetCache"]                                                      # cache.py


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("dataset", __name__, name)
