"""Record the Parameters of mint_layer_cases.LAYERS as MindSpore 2.10 builds them (run ONLY in the
MindSpore venv): data/mint_layers.json, per layer [name, shape, dtype, requires_grad] of each
Parameter in order."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mint_layer_cases  # noqa: E402


def main():
    import mindspore as ms
    from mindspore import mint  # noqa: F401 - the calls name it
    out = {}
    for key, call in mint_layer_cases.LAYERS.items():
        layer = eval(call)      # noqa: S307 - the recorder's own call list
        out[key] = [[p.name, list(p.shape), str(p.dtype), bool(p.requires_grad)] for p in layer.get_parameters()]
    with open(os.path.join(HERE, "data", "mint_layers.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "layers": out}, f, indent=1)
        f.write("\n")
    print("wrote data/mint_layers.json")


if __name__ == "__main__":
    main()
