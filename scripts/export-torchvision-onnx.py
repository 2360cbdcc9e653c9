#!/usr/bin/python3
"""Exports torchvision networks to ONNX graphs without their weight data.

Usage: scripts/export-torchvision-onnx.py OUT_DIR [--opset N] [--keep-weights]
                                          [NET ...]

Needs Debian's python3-torch, python3-torchvision and python3-onnx (install
with `scripts/install-deps.sh --onnx-export`); the build and `make check` do
not. The networks are built from their architecture alone (weights=None, no
download), in eval mode, with a dynamic batch dimension named `batch`
(npu-import-onnx binds it with --batch).

The float initializers (the trained weights) are written as ONNX external
data pointing at NET.weights, which is not kept unless --keep-weights is
given: the graph keeps every initializer's name, type and shape, so
npu-import-onnx turns them into function arguments, and the .onnx file
stays small enough for examples/. Integer initializers (index tables such as
Swin's relative position index, shape constants) stay inline: they are part
of the graph, not weights.
"""

import argparse
import os
import sys

NETWORKS = [
    "resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0",
    "convnext_tiny", "densenet121", "inception_v3", "swin_t", "vit_b_16",
    "deeplabv3_mobilenet_v3_large",
]

# inception_v3 wants 299x299; the others are exported at 224x224.
INPUT_SIZE = {"inception_v3": 299}


def build(name):
    import torchvision.models as models
    import torchvision.models.segmentation as segmentation
    if name.startswith("deeplabv3"):
        net = getattr(segmentation, name)(weights=None, weights_backbone=None,
                                          aux_loss=False)
    elif name == "inception_v3":
        net = models.inception_v3(weights=None, aux_logits=False,
                                  init_weights=False)
    else:
        net = getattr(models, name)(weights=None)
    return net.eval()


def externalize_float_weights(model, location):
    """Moves float initializer data to `location`; returns the bytes moved."""
    import onnx.numpy_helper
    from onnx import TensorProto
    floats = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16,
              TensorProto.DOUBLE}
    blobs, offset = [], 0
    for tensor in model.graph.initializer:
        if tensor.data_type not in floats:
            continue
        data = onnx.numpy_helper.to_array(tensor).tobytes()
        tensor.ClearField("raw_data")
        tensor.ClearField("float_data")
        tensor.ClearField("double_data")
        tensor.ClearField("int32_data")
        tensor.data_location = TensorProto.EXTERNAL
        del tensor.external_data[:]
        for key, value in (("location", location), ("offset", str(offset)),
                           ("length", str(len(data)))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        blobs.append(data)
        offset += len(data)
    return b"".join(blobs)


def export(name, out_dir, opset, keep_weights):
    import io
    import onnx
    import torch
    torch.manual_seed(0)
    net = build(name)
    size = INPUT_SIZE.get(name, 224)
    example = torch.zeros(1, 3, size, size)
    buffer = io.BytesIO()
    # Gradients stay enabled: without them nn.MultiheadAttention takes its
    # fused fast path (aten::_native_multi_head_attention), which has no
    # ONNX export; with them it exports as MatMul, Softmax and reshapes.
    torch.onnx.export(net, example, buffer, opset_version=opset,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"},
                                    "output": {0: "batch"}},
                      do_constant_folding=True)
    model = onnx.load_from_string(buffer.getvalue())
    model.producer_name = "npu-mlir scripts/export-torchvision-onnx.py"
    stem = "%s-opset%d" % (name, opset)
    weights = externalize_float_weights(model, stem + ".weights")
    path = os.path.join(out_dir, stem + ".onnx")
    onnx.save(model, path)
    if keep_weights:
        with open(os.path.join(out_dir, stem + ".weights"), "wb") as f:
            f.write(weights)
    nodes = len(model.graph.node)
    print("%-30s %6d nodes %8d bytes of graph, %10d bytes of weights%s" %
          (stem, nodes, os.path.getsize(path), len(weights),
           "" if keep_weights else " (not kept)"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("nets", nargs="*", default=NETWORKS)
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--keep-weights", action="store_true")
    args = parser.parse_args()
    unknown = [n for n in args.nets if n not in NETWORKS]
    if unknown:
        sys.exit("unknown network(s): %s; known: %s" %
                 (", ".join(unknown), ", ".join(NETWORKS)))
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.nets:
        export(name, args.out_dir, args.opset, args.keep_weights)


if __name__ == "__main__":
    main()
