#!/usr/bin/python3
"""Exports torchvision networks to ONNX graphs without their weight data.

Usage: scripts/export-torchvision-onnx.py OUT_DIR [--opset N] [--keep-weights]
                                          [--until-dynamic] [NET ...]

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

The detection models (DETECTION) are exported as torchvision runs them, on
one image (3 x 320 x 320; ssd300_vgg16 3 x 300 x 300) with their weights
inline. Their graphs go on to ops whose result shapes depend on the data
(NonZero after the score thresholds), which npu-import-onnx refuses naming
the node; with --until-dynamic each is also written as NET-prefix.onnx, the
graph up to that op with the op's inputs as its outputs, which imports and
runs.
"""

import argparse
import os
import sys

NETWORKS = [
    "resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0",
    "convnext_tiny", "densenet121", "inception_v3", "swin_t", "vit_b_16",
    "deeplabv3_mobilenet_v3_large",
]

DETECTION = [
    "fasterrcnn_mobilenet_v3_large_320_fpn", "fasterrcnn_resnet50_fpn",
    "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn",
    "retinanet_resnet50_fpn", "fcos_resnet50_fpn", "ssd300_vgg16",
    "ssdlite320_mobilenet_v3_large",
]

# Ops whose result shape depends on the data, or that run a subgraph chosen
# at run time.
DYNAMIC_OPS = {"NonZero", "Unique", "NonMaxSuppression", "If", "Loop"}

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


def export_detection(name, out_dir, opset, until_dynamic):
    import onnx
    import torch
    import torchvision.models.detection as detection
    torch.manual_seed(0)
    net = getattr(detection, name)(weights=None,
                                   weights_backbone=None).eval()
    size = 300 if name == "ssd300_vgg16" else 320
    path = os.path.join(out_dir, "%s-opset%d.onnx" % (name, opset))
    torch.onnx.export(net, ([torch.rand(3, size, size)],), path,
                      opset_version=opset, input_names=["input"],
                      do_constant_folding=True)
    model = onnx.load(path)
    print("%-40s %6d nodes" % (os.path.basename(path), len(model.graph.node)))
    if until_dynamic:
        prefix = graph_until_dynamic(model)
        stem = path[:-len(".onnx")] + "-prefix.onnx"
        onnx.save(prefix, stem)
        print("%-40s %6d nodes, up to %s" %
              (os.path.basename(stem), len(prefix.graph.node),
               prefix.doc_string))


def graph_until_dynamic(model):
    """The nodes the first data-dependent op's inputs need, those inputs as
    the graph's outputs (their extents from ONNX shape inference, or
    symbolic where it has none)."""
    import onnx
    from onnx import helper
    graph = model.graph
    stop = next(i for i, n in enumerate(graph.node)
                if n.op_type in DYNAMIC_OPS)
    outputs = [x for x in graph.node[stop].input if x]
    needed, kept = set(outputs), []
    for node in reversed(graph.node[:stop]):
        if any(o in needed for o in node.output):
            kept.append(node)
            needed.update(x for x in node.input if x)
    kept.reverse()
    prefix = helper.make_model(
        helper.make_graph(
            kept, graph.name, [i for i in graph.input if i.name in needed],
            [helper.make_empty_tensor_value_info(o) for o in outputs],
            [t for t in graph.initializer if t.name in needed]),
        opset_imports=model.opset_import)
    prefix.ir_version = model.ir_version
    inferred = onnx.shape_inference.infer_shapes(prefix)
    types = {v.name: v.type for v in inferred.graph.value_info}
    for output in prefix.graph.output:
        output.type.CopyFrom(types[output.name])
        shape = output.type.tensor_type.shape
        if not shape.dim:
            shape.dim.add().dim_param = output.name + "_size"
    node = graph.node[stop]
    prefix.doc_string = "%s (%s)" % (node.name, node.op_type)
    return prefix


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
    parser.add_argument("--until-dynamic", action="store_true")
    args = parser.parse_args()
    unknown = [n for n in args.nets if n not in NETWORKS + DETECTION]
    if unknown:
        sys.exit("unknown network(s): %s; known: %s" %
                 (", ".join(unknown), ", ".join(NETWORKS + DETECTION)))
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.nets:
        if name in DETECTION:
            export_detection(name, args.out_dir, args.opset,
                             args.until_dynamic)
        else:
            export(name, args.out_dir, args.opset, args.keep_weights)


if __name__ == "__main__":
    main()
