#!/usr/bin/python3
"""Writes the small ONNX models test/Target/ONNX checks the importer with.

Usage: scripts/make-onnx-test-models.py OUT_DIR   (test/Target/ONNX/models)

Needs Debian's python3-onnx; `make check` does not (the models are checked
in). Each model exercises one op and attribute combination, or one error.
Weights are small and deterministic (arange-based), so the FileCheck'd
constants of --weights=constants are reproducible.
"""

import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def weight(name, shape, scale=0.1, dtype=np.float32):
    values = (np.arange(np.prod(shape)) % 7 - 3) * scale
    return numpy_helper.from_array(values.reshape(shape).astype(dtype), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def floats(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def model(nodes, inputs, outputs, inits=(), opset=17, infer_outputs=True):
    graph = helper.make_graph(
        nodes, "test",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        list(inits))
    m = helper.make_model(graph, producer_name="make-onnx-test-models",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def node(op, inputs, outputs, name=None, **attrs):
    return helper.make_node(op, inputs, outputs, name=name or outputs[0],
                            **attrs)


X = ("x", F, [1, 3, 8, 8])


def models():
    m = {}
    # Convolutions, and BatchNormalization folded into them.
    bn = [weight("gamma", [4], 0.5), weight("beta", [4]),
          weight("mean", [4], 0.2), floats("var", [1.0, 2.0, 0.5, 4.0])]
    m["conv_bn_relu"] = model(
        [node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3],
              pads=[1, 1, 1, 1]),
         node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"],
              ["n"], epsilon=1e-3),
         node("Relu", ["n"], ["y"])],
        [X], [("y", F, [1, 4, 8, 8])],
        [weight("w", [4, 3, 3, 3]), weight("b", [4])] + bn)
    m["conv_attrs"] = model(
        [node("Conv", ["x", "w"], ["y"], pads=[1, 2, 1, 2], strides=[2, 2],
              dilations=[2, 1], group=1)],
        [X], [("y", F, [1, 6, 3, 5])], [weight("w", [6, 3, 3, 3])])
    m["conv_group_same"] = model(
        [node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER",
              strides=[2, 2], group=3)],
        [X], [("y", F, [1, 6, 4, 4])], [weight("w", [6, 1, 3, 3])])
    m["batchnorm"] = model(
        [node("BatchNormalization", ["x", "gamma", "beta", "mean", "var"],
              ["y"])],
        [("x", F, [1, 4, 5, 5])], [("y", F, [1, 4, 5, 5])], bn)
    # Pools.
    m["pools"] = model(
        [node("MaxPool", ["x"], ["a"], kernel_shape=[3, 3], strides=[2, 2],
              pads=[1, 1, 1, 1]),
         node("AveragePool", ["a"], ["b"], kernel_shape=[2, 2],
              count_include_pad=1, pads=[1, 1, 0, 0]),
         node("MaxPool", ["b"], ["c"], kernel_shape=[2, 2], strides=[2, 2],
              ceil_mode=1),
         node("GlobalAveragePool", ["c"], ["y"])],
        [("x", F, [1, 3, 10, 10])], [("y", F, [1, 3, 1, 1])])
    # Gemm, Flatten, MatMul.
    m["gemm"] = model(
        [node("Flatten", ["x"], ["f"], axis=1),
         node("Gemm", ["f", "w", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)],
        [("x", F, [2, 4, 1, 1])], [("y", F, [2, 3])],
        [weight("w", [3, 4]), weight("c", [3])])
    m["matmul_transposed"] = model(
        [node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
         node("MatMul", ["q", "kt"], ["y"])],
        [("q", F, [2, 5, 8]), ("k", F, [2, 7, 8])], [("y", F, [2, 5, 7])])
    # Elementwise ops and broadcasting in channels-last order.
    m["elementwise"] = model(
        [node("Conv", ["x", "w"], ["c"], kernel_shape=[1, 1]),
         node("Add", ["c", "bias"], ["a"]),
         node("Sub", ["one", "a"], ["s"]),
         node("Mul", ["s", "s"], ["p"]),
         node("Pow", ["p", "two"], ["q"]),
         node("Div", ["q", "a"], ["y"])],
        [X], [("y", F, [1, 4, 8, 8])],
        [weight("w", [4, 3, 1, 1]), weight("bias", [4, 1, 1]),
         floats("one", [1.0]), floats("two", [2.0])])
    m["activations"] = model(
        [node("HardSigmoid", ["x"], ["a"], alpha=0.25, beta=0.4),
         node("HardSwish", ["a"], ["b"]),
         node("Erf", ["b"], ["c"]),
         node("Clip", ["c", "lo", "hi"], ["d"]),
         node("Clip", ["d", "", "hi"], ["e"]),
         node("Sigmoid", ["e"], ["f"]),
         node("Tanh", ["f"], ["y"])],
        [("x", F, [2, 3])], [("y", F, [2, 3])],
        [floats("lo", 0.0), floats("hi", 6.0)])
    # Normalisation.
    m["layernorm"] = model(
        [node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1,
              epsilon=1e-6)],
        [("x", F, [2, 5, 8])], [("y", F, [2, 5, 8])],
        [weight("g", [8]), weight("b", [8])])
    m["softmax_channels"] = model(
        [node("Conv", ["x", "w"], ["c"], kernel_shape=[1, 1]),
         node("Softmax", ["c"], ["y"], axis=1)],
        [X], [("y", F, [1, 4, 8, 8])], [weight("w", [4, 3, 1, 1])])
    m["reduce_mean"] = model(
        [node("Conv", ["x", "w"], ["c"], kernel_shape=[1, 1]),
         node("ReduceMean", ["c"], ["y"], axes=[2, 3], keepdims=0)],
        [X], [("y", F, [1, 4])], [weight("w", [4, 3, 1, 1])])
    # Shape arithmetic folded at import.
    m["shape_arith"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Unsqueeze", ["n", "axes0"], ["n1"]),
         node("Constant", [], ["minus1"], value=ints("v", [-1])),
         node("Concat", ["n1", "minus1"], ["shape"], axis=0),
         node("Reshape", ["x", "shape"], ["y"])],
        [X], [("y", F, [1, 192])], [ints("zero", 0), ints("axes0", [0])])
    # A detection transform's resize arithmetic: reductions of the image's
    # extents, a reciprocal, comparisons and a floor, all folded.
    m["extent_arith"] = model(
        [node("Constant", [], ["thirtytwo"], value=floats("v", 32.0)),
         node("Constant", [], ["eight"], value=floats("v", 8.0)),
         node("Shape", ["x"], ["s"]),
         node("Slice", ["s", "two", "four"], ["hw"]),
         node("Cast", ["hw"], ["hwf"], to=F),
         node("ReduceMin", ["hwf"], ["mn"], keepdims=0),
         node("ReduceMax", ["hwf"], ["mx"], keepdims=0),
         node("Reciprocal", ["mn"], ["inv"]),
         node("Mul", ["inv", "thirtytwo"], ["scaled"]),
         node("Floor", ["scaled"], ["k"]),
         node("GreaterOrEqual", ["mx", "eight"], ["big"]),
         node("LessOrEqual", ["mn", "eight"], ["small"]),
         node("And", ["big", "small"], ["both"]),
         node("Where", ["both", "k", "eight"], ["kk"]),
         node("Cast", ["kk"], ["ki"], to=I64),
         node("Unsqueeze", ["ki", "axes0"], ["k1"]),
         node("Concat", ["lead", "k1"], ["shape"], axis=0),
         node("Reshape", ["x", "shape"], ["y"])],
        [X], [("y", F, [1, 3, 16, 4])],
        [ints("two", [2]), ints("four", [4]), ints("axes0", [0]),
         ints("lead", [1, 3, 16])])
    m["mask_arith"] = model(
        [node("ConstantOfShape", ["shape"], ["zeros"],
              value=helper.make_tensor("v", F, [1], [0.0])),
         node("Range", ["r0", "r4", "r1"], ["r"]),
         node("Mod", ["r", "two"], ["odd"]),
         node("Equal", ["odd", "one"], ["isodd"]),
         node("Not", ["isodd"], ["iseven"]),
         node("Constant", [], ["big"], value=floats("v", [-100.0])),
         node("Constant", [], ["upd"], value=floats("v", [7.0])),
         node("Where", ["iseven", "zeros", "big"], ["mask"]),
         node("ScatterND", ["mask", "idx", "upd"], ["mask2"]),
         node("Expand", ["mask2", "eshape"], ["mask3"]),
         node("Add", ["x", "mask3"], ["y"])],
        [("x", F, [2, 4])], [("y", F, [2, 4])],
        [ints("shape", [4]), ints("r0", 0), ints("r4", 4), ints("r1", 1),
         ints("two", 2), ints("one", 1), ints("idx", [[0]]),
         ints("eshape", [2, 4])])
    # Data-dependent versions of the same ops: npu ops.
    m["select"] = model(
        [node("Equal", ["a", "b"], ["eq"]),
         node("Not", ["eq"], ["ne"]),
         node("Where", ["ne", "a", "zero"], ["y"])],
        [("a", F, [2, 3]), ("b", F, [3])], [("y", F, [2, 3])],
        [floats("zero", 0.0)])
    m["compare_logic"] = model(
        [node("Greater", ["a", "b"], ["gt"]),
         node("LessOrEqual", ["a", "zero"], ["le"]),
         node("GreaterOrEqual", ["a", "b"], ["ge"]),
         node("Less", ["a", "b"], ["lt"]),
         node("And", ["gt", "le"], ["both"]),
         node("Or", ["ge", "lt"], ["either"]),
         node("And", ["both", "either"], ["keep"]),
         node("Where", ["keep", "a", "zero"], ["y"])],
        [("a", F, [2, 3]), ("b", F, [3])], [("y", F, [2, 3])],
        [floats("zero", 0.0)])
    m["gather"] = model(
        [node("Gather", ["x", "i"], ["a"], axis=1),
         node("Gather", ["a", "j"], ["y"], axis=0)],
        [("x", F, [2, 5, 4])], [("y", F, [2, 4])],
        [ints("i", 0), ints("j", [-1, 0])])
    m["expand"] = model(
        [node("Expand", ["x", "shape"], ["y"])],
        [("x", F, [1, 1, 8])], [("y", F, [3, 1, 8])],
        [ints("shape", [3, 1, 1])])
    m["scatternd"] = model(
        [node("ScatterND", ["x", "idx", "upd"], ["y"])],
        [("x", F, [4, 3]), ("upd", F, [2, 3])], [("y", F, [4, 3])],
        [ints("idx", [[1], [3]])])
    m["resize"] = model(
        [node("Resize", ["x", "", "scales"], ["a"], mode="linear",
              coordinate_transformation_mode="pytorch_half_pixel"),
         node("Resize", ["a", "", "", "sizes"], ["y"], mode="nearest",
              nearest_mode="floor",
              coordinate_transformation_mode="asymmetric")],
        [X], [("y", F, [1, 3, 20, 24])],
        [floats("scales", [1, 1, 2, 2]), ints("sizes", [1, 3, 20, 24])])
    m["pad_concat_slice"] = model(
        [node("Pad", ["x", "pads", "value"], ["p"]),
         node("Concat", ["p", "p"], ["c"], axis=1),
         node("Slice", ["c", "starts", "ends", "axes", "steps"], ["y"])],
        [("x", F, [1, 3, 4, 4])], [("y", F, [1, 3, 6, 3])],
        [ints("pads", [0, 0, 1, 2, 0, 0, 1, 0]), floats("value", 0.5),
         ints("starts", [0, 0]), ints("ends", [6, 6]), ints("axes", [1, 3]),
         ints("steps", [2, 2])])
    # Swin's pattern: conv, NCHW -> NHWC transpose, layer norm over C.
    m["transpose_free"] = model(
        [node("Conv", ["x", "w"], ["c"], kernel_shape=[4, 4], strides=[4, 4]),
         node("Transpose", ["c"], ["t"], perm=[0, 2, 3, 1]),
         node("LayerNormalization", ["t", "g", "b"], ["y"], axis=-1)],
        [X], [("y", F, [1, 2, 2, 8])],
        [weight("w", [8, 3, 4, 4]), weight("g", [8]), weight("b", [8])])
    m["dynamic_batch"] = model(
        [node("Relu", ["x"], ["y"])],
        [("x", F, ["batch", 3, 4, 4])], [("y", F, ["batch", 3, 4, 4])])
    # No graph outputs: the batch map has no results (a fuzzer's find).
    m["batch_no_outputs"] = model(
        [node("Relu", ["x"], ["y"])], [("x", F, ["batch", 3, 4, 4])], [])
    m["dropout"] = model(
        [node("Dropout", ["x", "ratio", "train"], ["y"])],
        [("x", F, [2, 3])], [("y", F, [2, 3])],
        [floats("ratio", 0.0),
         numpy_helper.from_array(np.array(True), "train")])
    ext = model([node("Conv", ["x", "w"], ["y"], kernel_shape=[1, 1])],
                [X], [("y", F, [1, 2, 8, 8])], [weight("w", [2, 3, 1, 1])])
    w = ext.graph.initializer[0]
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "missing.weights"), ("offset", "0"),
                       ("length", "24")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    m["external_missing"] = ext
    # Errors.
    m["err_unsupported_op"] = model(
        [node("LRN", ["x"], ["y"], size=3)], [X], [("y", F, [1, 3, 8, 8])])
    m["err_einsum_ellipsis"] = model(
        [node("Einsum", ["a", "b"], ["y"], equation="...ij,...jk->...ik")],
        [("a", F, [2, 3, 4]), ("b", F, [2, 4, 5])], [("y", F, [2, 3, 5])])
    m["err_einsum_sum"] = model(
        [node("Einsum", ["a", "b"], ["y"], equation="bij,jk->ik")],
        [("a", F, [2, 3, 4]), ("b", F, [4, 5])], [("y", F, [3, 5])])
    m["err_grid_sample_reflection"] = model(
        [node("GridSample", ["x", "g"], ["y"], padding_mode="reflection")],
        [("x", F, [1, 1, 4, 4]), ("g", F, [1, 2, 2, 2])],
        [("y", F, [1, 1, 2, 2])])
    m["err_topk_runtime_k"] = model(
        [node("TopK", ["x", "k"], ["v", "i"], axis=1)],
        [("x", F, [2, 8]), ("k", I64, [1])],
        [("v", F, [2, "k"]), ("i", I64, [2, "k"])], infer_outputs=False)
    m["err_topk_integers"] = model(
        [node("TopK", ["x", "k"], ["v", "i"], axis=1)],
        [("x", I64, [2, 8])], [("v", I64, [2, 3]), ("i", I64, [2, 3])],
        [ints("k", [3])])
    m["err_sequence_position"] = model(
        [node("SplitToSequence", ["x", "sizes"], ["seq"], axis=1),
         node("SequenceAt", ["seq", "two"], ["y"])],
        [("x", F, [2, 8])], [("y", F, [2, 4])],
        [ints("sizes", [4, 4]), ints("two", 2)], infer_outputs=False)
    m["err_sequence_no_position"] = model(
        [node("SplitToSequence", ["x", "sizes"], ["seq"], axis=1),
         node("SequenceAt", ["seq", "none"], ["y"])],
        [("x", F, [2, 8])], [("y", F, [2, 4])],
        [ints("sizes", [4, 4]), ints("none", [])], infer_outputs=False)
    m["err_sequence_no_split"] = model(
        [node("SplitToSequence", ["x"], ["seq"], axis=1),
         node("SequenceAt", ["seq", "two"], ["y"])],
        [("x", F, [2, 8])], [("y", F, [2, 1])],
        [ints("two", 2)], infer_outputs=False)
    m["err_nonzero"] = model(
        [node("Relu", ["x"], ["r"]), node("NonZero", ["r"], ["y"])],
        [("x", F, [2, 8])], [("y", I64, [2, "n"])], infer_outputs=False)
    m["err_split_sizes"] = model(
        [node("Split", ["x", "sizes"], ["a", "b"], axis=1)],
        [X], [("a", F, [1, 1, 8, 8]), ("b", F, [1, 1, 8, 8])],
        [ints("sizes", [1, 1])], infer_outputs=False)
    m["err_pad_reflect"] = model(
        [node("Pad", ["x", "pads"], ["y"], mode="reflect")],
        [X], [("y", F, [1, 3, 10, 10])], [ints("pads", [0, 0, 1, 1] * 2)])
    m["err_resize_cubic"] = model(
        [node("Resize", ["x", "", "scales"], ["y"], mode="cubic")],
        [X], [("y", F, [1, 3, 16, 16])], [floats("scales", [1, 1, 2, 2])])
    m["err_opset11"] = model([node("Relu", ["x"], ["y"])], [X],
                             [("y", F, [1, 3, 8, 8])], opset=11)
    m["err_opset18"] = model([node("Relu", ["x"], ["y"])], [X],
                             [("y", F, [1, 3, 8, 8])], opset=18)
    m["err_dynamic_dim"] = model(
        [node("Relu", ["x"], ["y"])], [("x", F, [1, "seq", 4])],
        [("y", F, [1, "seq", 4])])
    m["err_runtime_shape"] = model(
        [node("Cast", ["s"], ["si"], to=I64),
         node("Reshape", ["x", "si"], ["y"])],
        [("x", F, [2, 6]), ("s", F, [2])], [("y", F, [3, 4])])
    m["err_domain"] = model(
        [helper.make_node("Gelu", ["x"], ["y"], name="gelu",
                          domain="com.microsoft")],
        [X], [("y", F, [1, 3, 8, 8])])
    m["err_domain"].opset_import.append(helper.make_opsetid("com.microsoft", 1))
    m["err_conv1d"] = model(
        [node("Conv", ["x", "w"], ["y"], kernel_shape=[3])],
        [("x", F, [1, 3, 8])], [("y", F, [1, 2, 6])],
        [weight("w", [2, 3, 3])])
    m["err_training_dropout"] = model(
        [node("Dropout", ["x", "ratio", "train"], ["y"])],
        [("x", F, [2, 3])], [("y", F, [2, 3])],
        [floats("ratio", 0.5),
         numpy_helper.from_array(np.array(True), "train")])
    m["err_undefined_input"] = model(
        [node("Relu", ["nowhere"], ["y"])], [X], [("y", F, [1, 3, 8, 8])])
    m["err_layernorm_stats"] = model(
        [node("LayerNormalization", ["x", "g"], ["y", "mean"], axis=-1)],
        [("x", F, [2, 8])], [("y", F, [2, 8]), ("mean", F, [2, 1])],
        [weight("g", [8])])
    # One initializer reached through Identity, as exporters deduplicate
    # weights: one argument.
    m["identity_initializer"] = model(
        [node("Identity", ["w"], ["w_copy"]),
         node("Conv", ["x", "w"], ["a"], kernel_shape=[1, 1]),
         node("Conv", ["x", "w_copy"], ["b"], kernel_shape=[1, 1]),
         node("Add", ["a", "b"], ["y"])],
        [X], [("y", F, [1, 2, 8, 8])], [weight("w", [2, 3, 1, 1])])
    # A rank-3 image: its leading dimension is its channels, not a batch.
    m["image_without_batch"] = model(
        [node("Relu", ["x"], ["y"])], [("x", F, [3, 8, 8])],
        [("y", F, [3, 8, 8])])
    # Malformed models libonnx would crash or hang on, or the importer
    # run out of memory for; each must be a clear error.
    conv_y = [("y", F, ["n", "c", "h", "w"])]
    m["err_conv_stride0"] = model(
        [node("Conv", ["x", "w"], ["y"], kernel_shape=[1, 1], strides=[0, 0])],
        [X], conv_y, [weight("w", [2, 3, 1, 1])])
    m["err_pool_stride0"] = model(
        [node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[0, 1])],
        [X], conv_y)
    m["err_layernorm_axis_stats"] = model(
        [node("LayerNormalization", ["x", "g"], ["y", "mean"], axis=2**31)],
        [("x", F, [2, 8])], [("y", F, ["a", "b"]), ("mean", F, ["c", "d"])],
        [weight("g", [8])])
    # The same axis with the statistics unread (a fuzzer's find): they are
    # dropped, and the axis is then the importer's error.
    m["err_layernorm_axis_unread_stats"] = model(
        [node("LayerNormalization", ["x", "g"], ["y", "mean"], axis=2**31)],
        [("x", F, [2, 8])], [("y", F, ["a", "b"])], [weight("g", [8])])
    m["layernorm_unread_stats"] = model(
        [node("LayerNormalization", ["x", "g"], ["y", "mean", "inv_std"],
              axis=-1)],
        [("x", F, [2, 8])], [("y", F, [2, 8])], [weight("g", [8])])
    shape = ints("shape", [3, 4])
    shape.raw_data = shape.raw_data[:4]
    m["err_truncated_shape"] = model(
        [node("Reshape", ["x", "shape"], ["y"])], [("x", F, [2, 6])],
        [("y", F, ["a", "b"])], [shape])
    m["err_expand_huge"] = model(
        [node("Expand", ["one", "shape"], ["e"]),
         node("Add", ["x", "e"], ["y"])],
        [("x", F, [1, 1, 1])], [("y", F, ["a", "b", "c"])],
        [floats("one", [1.0]), ints("shape", [1 << 20, 1 << 20, 1 << 10])])
    m["err_huge_dim"] = model(
        [node("Relu", ["x"], ["y"])], [("x", F, [1, 1 << 62, 4])],
        [("y", F, ["a", "b", "c"])])
    m["err_negative_dim"] = model(
        [node("Relu", ["x"], ["y"])], [("x", F, [1, -1, 4])],
        [("y", F, ["a", "b", "c"])])
    big = helper.make_tensor("fill", F, [1], [1.0])
    m["err_fold_too_large"] = model(
        [node("ConstantOfShape", ["shape"], ["c"], value=big),
         node("Add", ["x", "c"], ["y"])],
        [("x", F, [8192, 8192])], [("y", F, [8192, 8192])],
        [ints("shape", [8192, 8192])])
    # A Conv whose kernel_shape has one entry for a 2-D input fails ONNX
    # inference and leaves its output untyped; libonnx's data propagation
    # through the Shape after it read that missing type.
    m["err_shape_after_failed_conv"] = model(
        [node("Conv", ["x", "w"], ["c"], kernel_shape=[1]),
         node("Shape", ["c"], ["s"]),
         node("Relu", ["x"], ["y"])],
        [X], [("y", F, [1, 3, 8, 8])], [weight("w", [2, 3, 1, 1])])
    m["err_dynamic_sequence_first"] = model(
        [node("Relu", ["x"], ["y"])], [("x", F, ["seq", 2, 4])],
        [("y", F, ["seq", 2, 4])])
    # A batch left dynamic, with ops that mix the samples: the importer
    # cannot read the batch at run time and says which op mixes them.
    n4 = [("x", F, ["n", 4])]
    m["err_batch_reduce"] = model(
        [node("ReduceSum", ["x", "zero"], ["y"], keepdims=1)], n4,
        [("y", F, [1, 4])], [ints("zero", [0])])
    m["err_batch_concat"] = model(
        [node("Concat", ["x", "x"], ["y"], axis=0)], n4, [("y", F, ["m", 4])])
    m["err_batch_softmax"] = model(
        [node("Softmax", ["x"], ["y"], axis=0)], n4, [("y", F, ["n", 4])])
    m["err_batch_reshape"] = model(
        [node("Reshape", ["x", "shape"], ["y"])], n4, [("y", F, [4, "n"])],
        [ints("shape", [4, -1])])
    m["err_batch_output"] = model(
        [node("Transpose", ["x"], ["y"], perm=[1, 0])], n4,
        [("y", F, [4, "n"])])
    m["err_batch_matmul"] = model(
        [node("Transpose", ["x"], ["t"], perm=[1, 0]),
         node("MatMul", ["t", "x"], ["y"])], n4, [("y", F, [4, 4])])
    m["err_batch_gather"] = model(
        [node("Gather", ["x", "first"], ["y"], axis=0)], n4,
        [("y", F, [1, 4])], [ints("first", [0])])
    m["err_batch_pad"] = model(
        [node("Pad", ["x", "pads"], ["y"])], n4, [("y", F, ["m", 4])],
        [ints("pads", [1, 0, 0, 0])])
    m["err_batch_topk"] = model(
        [node("TopK", ["x", "one"], ["y", "i"], axis=0)], n4,
        [("y", F, [1, 4]), ("i", I64, [1, 4])],
        [ints("one", [1])])
    # Values folded from the batch: x + N, and x[:2] (whose end the
    # importer clamps to the batch axis at batch 1 and 2).
    m["err_batch_value"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Cast", ["n"], ["nf"], to=F),
         node("Add", ["x", "nf"], ["y"])], n4, [("y", F, ["n", 4])],
        [ints("zero", 0)])
    # x + the sample's index: Range(0, N) is a line's worth of elements,
    # each the same at every batch, but not the same in every sample.
    m["err_batch_index"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Range", ["zero", "n", "one"], ["r"]),
         node("Cast", ["r"], ["rf"], to=F),
         node("Unsqueeze", ["rf", "one1"], ["index"]),
         node("Add", ["x", "index"], ["y"])], n4, [("y", F, ["n", 4])],
        [ints("zero", 0), ints("one", 1), ints("one1", [1])])
    # N / 3 (integer division): 0 at batch 1 and at 2, so only the import
    # at batch 7 shows it depends on the batch.
    m["err_batch_floor"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Div", ["n", "three"], ["k"]),
         node("Cast", ["k"], ["kf"], to=F),
         node("Add", ["x", "kf"], ["y"])], n4, [("y", F, ["n", 4])],
        [ints("zero", 0), ints("three", 3)])
    # N / 8: 0 at batch 1, 2 and 7. The batch reaches it through Shape, so
    # the same value at both probes is an error rather than a constant.
    m["err_batch_floor8"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Div", ["n", "eight"], ["k"]),
         node("Cast", ["k"], ["kf"], to=F),
         node("Add", ["x", "kf"], ["y"])], n4, [("y", F, ["n", 4])],
        [ints("zero", 0), ints("eight", 8)])
    # ones([N / 8 + 1]): a shape computed from the batch, [1] at every
    # probe.
    m["err_batch_shape8"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Slice", ["s", "zero1", "one1"], ["n"]),
         node("Div", ["n", "eight"], ["k"]),
         node("Add", ["k", "one"], ["k1"]),
         node("ConstantOfShape", ["k1"], ["c"],
              value=helper.make_tensor("v", F, [1], [1.0])),
         node("Add", ["x", "c"], ["y"])], n4, [("y", F, ["n", 4])],
        [ints("zero1", [0]), ints("one1", [1]), ints("eight", 8),
         ints("one", 1)])
    # Arithmetic the importer follows as lines in N, as exporters write it:
    # N as Size(zeros_like(x)) / 4 (an exact division), max(N, 1) (a
    # maximum that never changes operand at a batch of 1 or more) and
    # x.numel() // N (a ratio of lines, constant) in a reshape target
    # [N, 1, 4], and a class token expanded to [N, 1, 4] through torch's
    # Where(Equal(shape, -1), 1, shape).
    m["batch_shape_lines"] = model(
        [node("Shape", ["x"], ["s"]),
         node("ConstantOfShape", ["s"], ["zeros"]),
         node("Size", ["zeros"], ["size"]),
         node("Div", ["size", "four"], ["n"]),
         node("Max", ["n", "one"], ["n0"]),
         node("Unsqueeze", ["n0", "zero1"], ["n1"]),
         node("Size", ["x"], ["numel"]),
         node("Div", ["numel", "n0"], ["per"]),
         node("Unsqueeze", ["per", "zero1"], ["per1"]),
         node("Concat", ["n1", "one1", "per1"], ["rows"], axis=0),
         node("Reshape", ["x", "rows"], ["r"]),
         node("Concat", ["n1", "minus11"], ["wanted"], axis=0),
         node("Equal", ["wanted", "minus1"], ["keep"]),
         node("Where", ["keep", "one", "wanted"], ["target"]),
         node("Expand", ["cls", "target"], ["e"]),
         node("Concat", ["e", "r"], ["y"], axis=1)],
        n4, [("y", F, ["n", 2, 4])],
        [ints("four", 4), ints("zero1", [0]), ints("one1", [1]),
         ints("minus11", [-1, -1]), ints("minus1", -1), ints("one", 1),
         weight("cls", [1, 1, 4])])
    # x beside ones shaped as x, folded on the host: 150,528 elements a
    # sample, so a chunk of 112 samples passes the 2^24 elements the host
    # folds; the model then imports without the chunk.
    m["batch_big_fill"] = model(
        [node("Shape", ["x"], ["s"]),
         node("ConstantOfShape", ["s"], ["ones"],
              value=helper.make_tensor("v", F, [1], [1.0])),
         node("Concat", ["x", "ones"], ["y"], axis=1)],
        [("x", F, ["n", 3, 224, 224])], [("y", F, ["n", 6, 224, 224])])
    # Lines the graph would hide, and values the importer does not follow:
    # a slice's end of 64 - 8N on an axis of 4 (clamped to 4 at every
    # probe, 0 at batch 8); a Range's count ceil(N / 8); float arithmetic
    # (floor(N / 7.0 * 7.0) is N - 1 at batch 31 in f32).
    m["err_batch_slice_line"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Slice", ["s", "zero1", "one1"], ["n"]),
         node("Mul", ["n", "minus8"], ["m"]),
         node("Add", ["m", "sixtyfour"], ["end"]),
         node("Slice", ["x", "zero1", "end", "one1"], ["y"])],
        n4, [("y", F, ["n", "k"])],
        [ints("zero1", [0]), ints("one1", [1]), ints("minus8", [-8]),
         ints("sixtyfour", [64])])
    m["err_batch_range"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Range", ["zero", "n", "eight"], ["r"]),
         node("Shape", ["r"], ["count"]),
         node("Cast", ["count"], ["cf"], to=F),
         node("Add", ["x", "cf"], ["y"])], n4, [("y", F, ["n", 4])],
        [ints("zero", 0), ints("eight", 8)])
    m["err_batch_float"] = model(
        [node("Constant", [], ["seven"], value=floats("v", 7.0)),
         node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Cast", ["n"], ["nf"], to=F),
         node("Div", ["nf", "seven"], ["q"]),
         node("Mul", ["q", "seven"], ["p"]),
         node("Floor", ["p"], ["k"]),
         node("Add", ["x", "k"], ["y"])], n4, [("y", F, ["n", 4])],
        [ints("zero", 0)])
    # min(N, 7) is N at batch 1, 2 and 7 but 7 at batch 8: as a slice's
    # end on the batch axis it would take all of a batch of 8.
    m["err_batch_min7"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Slice", ["s", "zero1", "one1"], ["n"]),
         node("Min", ["n", "seven"], ["end"]),
         node("Slice", ["x", "zero1", "end", "zero1"], ["y"])],
        n4, [("y", F, ["m", 4])],
        [ints("zero1", [0]), ints("one1", [1]), ints("seven", [7])])
    # The rows of x[:2] are min(N, 2): the line through batch 1 and 2 is N,
    # through batch 1 and 7 another.
    m["err_batch_lines"] = model(
        [node("Slice", ["x", "zero1", "two1", "zero1"], ["head"]),
         node("Shape", ["head"], ["s"]),
         node("Slice", ["s", "zero1", "one1"], ["n"]),
         node("Concat", ["n", "minus1"], ["shape"], axis=0),
         node("Reshape", ["x", "shape"], ["y"])],
        n4, [("y", F, ["m", "k"])],
        [ints("zero1", [0]), ints("one1", [1]), ints("two1", [2]),
         ints("minus1", [-1])])
    # N / 8 in a tensor the batch shapes ([N, 4], so different at each
    # probe), and as the mean of a BatchNormalization the convolution
    # before it absorbs.
    m["err_batch_splat"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Div", ["n", "eight"], ["k"]),
         node("Cast", ["k"], ["kf"], to=F),
         node("Unsqueeze", ["n", "zero1"], ["n1"]),
         node("Concat", ["n1", "four1"], ["shape"], axis=0),
         node("Expand", ["kf", "shape"], ["c"]),
         node("Concat", ["x", "c"], ["y"], axis=1)],
        n4, [("y", F, ["n", 8])],
        [ints("zero", 0), ints("eight", 8), ints("zero1", [0]),
         ints("four1", [4])])
    m["err_batch_bn"] = model(
        [node("Shape", ["x"], ["s"]),
         node("Gather", ["s", "zero"], ["n"], axis=0),
         node("Div", ["n", "eight"], ["k"]),
         node("Cast", ["k"], ["kf"], to=F),
         node("Expand", ["kf", "four1"], ["mean"]),
         node("Conv", ["x", "w"], ["c"], kernel_shape=[1, 1]),
         node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"],
              ["y"])],
        [("x", F, ["n", 3, 4, 4])], [("y", F, ["n", 4, 4, 4])],
        [ints("zero", 0), ints("eight", 8), ints("four1", [4]),
         weight("w", [4, 3, 1, 1]), weight("gamma", [4]), weight("beta", [4]),
         weight("var", [4])])
    # Shape arithmetic that the batch reaches in part: the reshape target
    # [N, 3, 16, k] takes N from Shape and k from the image's extents (as
    # in extent_arith), which stay the same at every probe.
    m["batch_extent_arith"] = model(
        [node("Constant", [], ["thirtytwo"], value=floats("v", 32.0)),
         node("Shape", ["x"], ["s"]),
         node("Slice", ["s", "zero1", "one1"], ["n"]),
         node("Slice", ["s", "two", "four"], ["hw"]),
         node("Cast", ["hw"], ["hwf"], to=F),
         node("ReduceMin", ["hwf"], ["mn"], keepdims=0),
         node("Reciprocal", ["mn"], ["inv"]),
         node("Mul", ["inv", "thirtytwo"], ["scaled"]),
         node("Floor", ["scaled"], ["k"]),
         node("Cast", ["k"], ["ki"], to=I64),
         node("Unsqueeze", ["ki", "zero1"], ["k1"]),
         node("Concat", ["n", "mid", "k1"], ["shape"], axis=0),
         node("Reshape", ["x", "shape"], ["y"])],
        [("x", F, ["n", 3, 8, 8])], [("y", F, ["n", 3, 16, 4])],
        [ints("zero1", [0]), ints("one1", [1]), ints("two", [2]),
         ints("four", [4]), ints("mid", [3, 16])])
    m["err_batch_slice"] = model(
        [node("Slice", ["x", "zero", "two", "zero"], ["y"])], n4,
        [("y", F, ["m", 4])], [ints("zero", [0]), ints("two", [2])])
    # An output the batch does not reach, beside one it does.
    m["err_batch_fixed_output"] = model(
        [node("Relu", ["x"], ["y"]), node("Relu", ["f"], ["z"])],
        n4 + [("f", F, [3, 4])], [("y", F, ["n", 4]), ("z", F, [3, 4])])
    # A shape written for batch 1 (as a trace at batch 1 exports it): the
    # import at batch 2 fails.
    m["err_batch_traced_shape"] = model(
        [node("Reshape", ["x", "shape"], ["y"])], n4, [("y", F, [1, 2, 2])],
        [ints("shape", [1, 2, 2])])
    return m


# -- Small networks end to end ---------------------------------------------
#
# A small CNN and a small transformer (and models of single ops the
# importer decomposes), with random weights, their inputs (NAME.input.npy,
# or NAME.input0.npy, ... for several) and the output a float64 evaluation
# of the ONNX ops' definitions gives (NAME.expected.txt, in `npu-run
# --print-outputs`'s format). The reference below is written from the ONNX operator
# documentation, not from the importer or the kernels.


def ref_conv(x, w, b, pads, strides, group=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (x.shape[2] - kh) // strides[0] + 1
    ow = (x.shape[3] - kw) // strides[1] + 1
    y = np.zeros((n, o, oh, ow))
    og = o // group
    for q in range(o):
        g = q // og
        for i in range(kh):
            for j in range(kw):
                patch = x[:, g * cg:(g + 1) * cg,
                          i:i + strides[0] * oh:strides[0],
                          j:j + strides[1] * ow:strides[1]]
                y[:, q] += np.einsum("nchw,c->nhw", patch, w[q, :, i, j])
    return y + b.reshape(1, o, 1, 1)


def ref_batchnorm(x, gamma, beta, mean, var, eps):
    s = (1, -1, 1, 1)
    return ((x - mean.reshape(s)) / np.sqrt(var.reshape(s) + eps) *
            gamma.reshape(s) + beta.reshape(s))


def ref_maxpool(x, k, stride):
    n, c, h, w = x.shape
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    y = np.full((n, c, oh, ow), -np.inf)
    for i in range(k):
        for j in range(k):
            y = np.maximum(y, x[:, :, i:i + stride * oh:stride,
                                j:j + stride * ow:stride])
    return y


def ref_layernorm(x, g, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def ref_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def ref_erf(x):
    return np.vectorize(math.erf)(x)


def random_init(rng, name, shape, scale):
    values = rng.uniform(-scale, scale, size=shape).astype(np.float32)
    return numpy_helper.from_array(values, name), values.astype(np.float64)


def small_cnn(rng, samples=None):
    """Conv-BN-Relu, MaxPool, a residual block with a depthwise conv, a
    strided 1x1 conv, global average pool and a classifier; with `samples`,
    its batch is left dynamic and the input has that many."""
    w = {}
    inits = []
    for name, shape, scale in [
            ("w1", [8, 3, 3, 3], 0.4), ("b1", [8], 0.1),
            ("gamma", [8], 1.0), ("beta", [8], 0.2), ("mean", [8], 0.2),
            ("w2", [8, 1, 3, 3], 0.4), ("b2", [8], 0.1),
            ("w3", [16, 8, 1, 1], 0.4), ("b3", [16], 0.1),
            ("fc", [10, 16], 0.3), ("fcb", [10], 0.1)]:
        t, w[name] = random_init(rng, name, shape, scale)
        inits.append(t)
    var = rng.uniform(0.5, 2.0, size=[8]).astype(np.float32)
    inits.append(numpy_helper.from_array(var, "var"))
    w["var"] = var.astype(np.float64)
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3],
             pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c1", "gamma", "beta", "mean", "var"],
             ["n1"], epsilon=1e-5),
        node("Relu", ["n1"], ["r1"]),
        node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        node("Conv", ["p1", "w2", "b2"], ["c2"], kernel_shape=[3, 3],
             pads=[1, 1, 1, 1], group=8),
        node("Relu", ["c2"], ["r2"]),
        node("Add", ["p1", "r2"], ["s"]),
        node("Conv", ["s", "w3", "b3"], ["c3"], kernel_shape=[1, 1],
             strides=[2, 2]),
        node("Relu", ["c3"], ["r3"]),
        node("GlobalAveragePool", ["r3"], ["g"]),
        node("Flatten", ["g"], ["f"], axis=1),
        node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1)]
    batch = "n" if samples else 1
    m = model(nodes, [("x", F, [batch, 3, 16, 16])], [("y", F, [batch, 10])],
              inits)
    x = rng.standard_normal((samples or 1, 3, 16, 16)).astype(np.float32)

    def reference(x):
        r1 = np.maximum(ref_batchnorm(
            ref_conv(x, w["w1"], w["b1"], [1] * 4, [1, 1]), w["gamma"],
            w["beta"], w["mean"], w["var"], 1e-5), 0)
        p1 = ref_maxpool(r1, 2, 2)
        r2 = np.maximum(ref_conv(p1, w["w2"], w["b2"], [1] * 4, [1, 1], 8), 0)
        r3 = np.maximum(ref_conv(p1 + r2, w["w3"], w["b3"], [0] * 4, [2, 2]),
                        0)
        return r3.mean(axis=(2, 3)) @ w["fc"].T + w["fcb"]
    return m, x, reference(x.astype(np.float64))


def small_transformer(rng):
    """One pre-norm encoder block as torch exports it: LayerNorm, two-head
    self-attention (MatMul, Transpose, Softmax), a residual, LayerNorm, an
    MLP with the erf GELU, a residual."""
    s, d, heads, hidden = 6, 16, 2, 32
    dh = d // heads
    w = {}
    inits = []
    for name, shape, scale in [
            ("g1", [d], 1.0), ("be1", [d], 0.2),
            ("wq", [d, d], 0.4), ("wk", [d, d], 0.4), ("wv", [d, d], 0.4),
            ("bq", [d], 0.1), ("wo", [d, d], 0.4), ("bo", [d], 0.1),
            ("g2", [d], 1.0), ("be2", [d], 0.2),
            ("w1", [d, hidden], 0.4), ("bh", [hidden], 0.1),
            ("w2", [hidden, d], 0.3), ("b2", [d], 0.1)]:
        t, w[name] = random_init(rng, name, shape, scale)
        inits.append(t)
    inits += [ints("heads_shape", [1, s, heads, dh]),
              ints("model_shape", [1, s, d]),
              floats("scale", [1.0 / math.sqrt(dh)]),
              floats("sqrt2", [math.sqrt(2.0)]), floats("one", [1.0]),
              floats("half", [0.5])]

    def split(name):
        return [node("Reshape", [name, "heads_shape"], [name + "_h"]),
                node("Transpose", [name + "_h"], [name + "_t"],
                     perm=[0, 2, 1, 3])]
    nodes = [
        node("LayerNormalization", ["x", "g1", "be1"], ["n1"], axis=-1,
             epsilon=1e-5),
        node("MatMul", ["n1", "wq"], ["q0"]),
        node("Add", ["q0", "bq"], ["q"]),
        node("MatMul", ["n1", "wk"], ["k"]),
        node("MatMul", ["n1", "wv"], ["v"])] + split("q") + split("k") + \
        split("v") + [
        node("Transpose", ["k_t"], ["kt"], perm=[0, 1, 3, 2]),
        node("MatMul", ["q_t", "kt"], ["scores"]),
        node("Mul", ["scores", "scale"], ["scaled"]),
        node("Softmax", ["scaled"], ["probs"], axis=-1),
        node("MatMul", ["probs", "v_t"], ["ctx_t"]),
        node("Transpose", ["ctx_t"], ["ctx_h"], perm=[0, 2, 1, 3]),
        node("Reshape", ["ctx_h", "model_shape"], ["ctx"]),
        node("MatMul", ["ctx", "wo"], ["o0"]),
        node("Add", ["o0", "bo"], ["o"]),
        node("Add", ["x", "o"], ["res1"]),
        node("LayerNormalization", ["res1", "g2", "be2"], ["n2"], axis=-1,
             epsilon=1e-5),
        node("MatMul", ["n2", "w1"], ["h0"]),
        node("Add", ["h0", "bh"], ["h"]),
        node("Div", ["h", "sqrt2"], ["hs"]),
        node("Erf", ["hs"], ["he"]),
        node("Add", ["he", "one"], ["h1"]),
        node("Mul", ["h", "h1"], ["h2"]),
        node("Mul", ["h2", "half"], ["gelu"]),
        node("MatMul", ["gelu", "w2"], ["m0"]),
        node("Add", ["m0", "b2"], ["m"]),
        node("Add", ["res1", "m"], ["y"])]
    m = model(nodes, [("x", F, [1, s, d])], [("y", F, [1, s, d])], inits)
    x = rng.standard_normal((1, s, d)).astype(np.float32)

    def reference(x):
        n1 = ref_layernorm(x, w["g1"], w["be1"], 1e-5)

        def heads_of(t):
            return t.reshape(1, s, heads, dh).transpose(0, 2, 1, 3)
        q = heads_of(n1 @ w["wq"] + w["bq"])
        k = heads_of(n1 @ w["wk"])
        v = heads_of(n1 @ w["wv"])
        probs = ref_softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh))
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(1, s, d)
        res1 = x + ctx @ w["wo"] + w["bo"]
        h = ref_layernorm(res1, w["g2"], w["be2"], 1e-5) @ w["w1"] + w["bh"]
        gelu = h * (ref_erf(h / math.sqrt(2.0)) + 1) * 0.5
        return res1 + gelu @ w["w2"] + w["b2"]
    return m, x, reference(x.astype(np.float64))


def split_tile_reciprocal(rng):
    """Split by given sizes and in equal parts, Tile, Reciprocal."""
    nodes = [
        node("Split", ["x", "sizes"], ["a", "b"], axis=1),
        node("Tile", ["a", "repeats"], ["t"]),
        node("Abs", ["b"], ["ab"]),
        node("Add", ["ab", "one"], ["c"]),
        node("Reciprocal", ["c"], ["rc"]),
        node("Add", ["t", "rc"], ["s"]),
        node("Split", ["s"], ["s0", "s1"], axis=2),
        node("Mul", ["s0", "s1"], ["y"])]
    m = model(nodes, [("x", F, [2, 6, 4])], [("y", F, [2, 4, 2])],
              [ints("sizes", [2, 4]), ints("repeats", [1, 2, 1]),
               floats("one", [1.0])])
    x = rng.standard_normal((2, 6, 4)).astype(np.float32)

    def reference(x):
        a, b = x[:, :2], x[:, 2:]
        s = np.tile(a, (1, 2, 1)) + 1.0 / (np.abs(b) + 1.0)
        return s[:, :, :2] * s[:, :, 2:]
    return m, x, reference(x.astype(np.float64))


def instance_norm(rng):
    """InstanceNormalization of NCHW, per-channel scale and bias."""
    t_scale, scale = random_init(rng, "scale", [3], 1.0)
    t_bias, bias = random_init(rng, "bias", [3], 0.5)
    nodes = [node("InstanceNormalization", ["x", "scale", "bias"], ["y"],
                  epsilon=1e-3)]
    m = model(nodes, [("x", F, [2, 3, 5, 6])], [("y", F, [2, 3, 5, 6])],
              [t_scale, t_bias])
    x = (rng.standard_normal((2, 3, 5, 6)) * 2 + 0.5).astype(np.float32)

    def reference(x):
        mean = x.mean(axis=(2, 3), keepdims=True)
        var = ((x - mean) ** 2).mean(axis=(2, 3), keepdims=True)
        return ((x - mean) / np.sqrt(var + 1e-3) * scale.reshape(1, 3, 1, 1)
                + bias.reshape(1, 3, 1, 1))
    return m, x, reference(x.astype(np.float64))


def einsum(rng):
    """Einsum as maxvit writes it (spaced letters, batched products), a
    product whose output puts the right operand's letter first, and a
    permutation."""
    t_w, w = random_init(rng, "w", [7, 5], 0.5)
    nodes = [
        node("Einsum", ["x", "y"], ["s"],
             equation="B H I D, B H J D -> B H I J"),
        node("Einsum", ["s", "y"], ["c"], equation="bhij,bhjd->bhid"),
        node("Einsum", ["c", "w"], ["p"], equation="bhid,kd->bkhi"),
        node("Einsum", ["p"], ["y2"], equation="bkhi->ihbk")]
    m = model(nodes, [("x", F, [2, 3, 4, 5]), ("y", F, [2, 3, 6, 5])],
              [("y2", F, [4, 3, 2, 7])], [t_w])
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)

    def reference(x, y):
        s = np.einsum("bhid,bhjd->bhij", x, y)
        c = np.einsum("bhij,bhjd->bhid", s, y)
        p = np.einsum("bhid,kd->bkhi", c, w)
        return np.einsum("bkhi->ihbk", p)
    return m, (x, y), reference(x.astype(np.float64), y.astype(np.float64))


def ref_grid_sample(x, grid, align_corners, border):
    """ONNX GridSample, bilinear, NCHW, from its definition."""
    n, c, h, w = x.shape
    _, ho, wo, _ = grid.shape
    out = np.zeros((n, c, ho, wo))

    def unnormalize(v, size):
        if align_corners:
            return (v + 1) / 2 * (size - 1)
        return ((v + 1) * size - 1) / 2

    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                ix = unnormalize(grid[b, i, j, 0], w)
                iy = unnormalize(grid[b, i, j, 1], h)
                if border:
                    ix = min(max(ix, 0), w - 1)
                    iy = min(max(iy, 0), h - 1)
                x0, y0 = int(np.floor(ix)), int(np.floor(iy))
                for yy, wy in ((y0, 1 - (iy - y0)), (y0 + 1, iy - y0)):
                    for xx, wx in ((x0, 1 - (ix - x0)), (x0 + 1, ix - x0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            out[b, :, i, j] += wy * wx * x[b, :, yy, xx]
    return out


def grid_sample(rng):
    """GridSample as RAFT uses it (bilinear, zeros, align_corners) plus
    the other corner convention with border padding, on points inside,
    on the edges and outside the input."""
    nodes = [
        node("GridSample", ["x", "g"], ["a"], align_corners=1,
             mode="bilinear", padding_mode="zeros"),
        node("GridSample", ["x", "g"], ["b"], align_corners=0,
             mode="bilinear", padding_mode="border"),
        node("Add", ["a", "b"], ["y"])]
    m = model(nodes, [("x", F, [2, 3, 5, 6]), ("g", F, [2, 4, 7, 2])],
              [("y", F, [2, 3, 4, 7])])
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    g = rng.uniform(-1.3, 1.3, (2, 4, 7, 2)).astype(np.float32)
    g[0, 0, 0] = (-1, -1)
    g[0, 0, 1] = (1, 1)
    g[1, 3, 6] = (1, -1)

    def reference(x, g):
        return (ref_grid_sample(x, g, True, False) +
                ref_grid_sample(x, g, False, True))
    return m, (x, g), reference(x.astype(np.float64), g.astype(np.float64))


def topk(rng):
    """TopK as torchvision's RPN uses it (the largest scores along the last
    axis) and the smallest along a middle axis, on values with ties; each
    result's values and positions are flattened into one output."""
    nodes = [
        node("TopK", ["x", "k6"], ["v", "i"], axis=-1),
        node("TopK", ["x", "k2"], ["w", "j"], axis=1, largest=0, sorted=1),
        node("Cast", ["i"], ["fi"], to=F),
        node("Cast", ["j"], ["fj"], to=F),
        node("Concat", ["v", "fi"], ["a"], axis=2),
        node("Concat", ["w", "fj"], ["b"], axis=1),
        node("Reshape", ["a", "flat"], ["af"]),
        node("Reshape", ["b", "flat"], ["bf"]),
        node("Concat", ["af", "bf"], ["y"], axis=1)]
    m = model(nodes, [("x", F, [2, 3, 40])], [("y", F, [2, 196])],
              [ints("k6", [6]), ints("k2", [2]), ints("flat", [2, -1])])
    # Few distinct values, so that ties decide many places.
    x = rng.integers(0, 9, (2, 3, 40)).astype(np.float32)

    def reference(x):
        # A stable argsort keeps equal values in index order, as ONNX says.
        i = np.argsort(-x, axis=2, kind="stable")[:, :, :6]
        j = np.argsort(x, axis=1, kind="stable")[:, :2, :]
        a = np.concatenate([np.take_along_axis(x, i, 2), i], axis=2)
        b = np.concatenate([np.take_along_axis(x, j, 1), j], axis=1)
        return np.concatenate([a.reshape(2, -1), b.reshape(2, -1)], axis=1)
    return m, x, reference(x.astype(np.float64))


def l2_norm(rng):
    """SSD300's L2Norm: each pixel's channels divided by their ReduceL2."""
    nodes = [node("ReduceL2", ["x"], ["n"], axes=[1], keepdims=1),
             node("Div", ["x", "n"], ["y"])]
    m = model(nodes, [("x", F, [2, 6, 4, 5])], [("y", F, [2, 6, 4, 5])])
    x = rng.standard_normal((2, 6, 4, 5)).astype(np.float32)

    def reference(x):
        return x / np.sqrt(np.sum(x * x, axis=1, keepdims=True))
    return m, x, reference(x.astype(np.float64))


def split_sequence(rng):
    """MViT's split of a class token off its tokens: SplitToSequence with
    sizes computed from the shape (Tile folded on the host), SequenceAt at
    positions 0 and -1."""
    nodes = [
        node("Shape", ["x"], ["s"]),
        node("Gather", ["s", "two"], ["n"], axis=0),
        node("Sub", ["n", "one"], ["rest"]),
        node("Tile", ["one", "one"], ["first"]),
        node("Concat", ["first", "rest"], ["sizes"], axis=0),
        node("SplitToSequence", ["x", "sizes"], ["seq"], axis=2),
        node("SequenceAt", ["seq", "zero"], ["cls"]),
        node("SequenceAt", ["seq", "last"], ["tokens"]),
        node("ReduceMean", ["tokens"], ["mean"], axes=[2], keepdims=1),
        node("Add", ["cls", "mean"], ["y"])]
    m = model(nodes, [("x", F, [2, 3, 9, 4])], [("y", F, [2, 3, 1, 4])],
              [ints("two", [2]), ints("one", [1]), ints("zero", 0),
               ints("last", -1)])
    x = rng.standard_normal((2, 3, 9, 4)).astype(np.float32)

    def reference(x):
        return x[:, :, :1, :] + x[:, :, 1:, :].mean(axis=2, keepdims=True)
    return m, x, reference(x.astype(np.float64))


def small_cnn_batch(rng):
    return small_cnn(rng, samples=3)


def interleaved_batch(rng):
    """A batch left dynamic that a reshape interleaves with another axis and
    a second reshape restores, as torch's multi-head attention exports
    ([L, B, E] viewed as [L * B, E]); the samples stay apart."""
    nodes = [
        node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
        node("Reshape", ["t", "rows"], ["r"]),
        node("Relu", ["r"], ["a"]),
        node("Reshape", ["a", "back"], ["b"]),
        node("Transpose", ["b"], ["y"], perm=[1, 0, 2])]
    m = model(nodes, [("x", F, ["n", 2, 3])], [("y", F, ["n", 2, 3])],
              [ints("rows", [-1, 3]), ints("back", [2, -1, 3])])
    x = rng.standard_normal((4, 2, 3)).astype(np.float32)
    return m, x, np.maximum(x.astype(np.float64), 0)


def write_listing(path, array):
    """`array` as `npu-run --print-outputs` prints an output."""
    shape = ", ".join(str(d) for d in array.shape)
    values = ", ".join("%.17g" % v for v in array.reshape(-1))
    with open(path, "w") as f:
        f.write("expected [%s] = [%s]\n" % (shape, values))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in sorted(models().items()):
        data = m.SerializeToString()
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
    rng = np.random.default_rng(2026)
    for name, build in (("small_cnn", small_cnn),
                        ("small_transformer", small_transformer),
                        ("split_tile_reciprocal", split_tile_reciprocal),
                        ("instance_norm", instance_norm),
                        ("einsum", einsum),
                        ("grid_sample", grid_sample),
                        ("topk", topk),
                        ("l2_norm", l2_norm),
                        ("split_sequence", split_sequence),
                        ("small_cnn_batch", small_cnn_batch),
                        ("interleaved_batch", interleaved_batch)):
        m, x, expected = build(rng)
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
        # A batch left dynamic is also run at one sample: the first.
        if name == "small_cnn_batch":
            np.save(os.path.join(out, name + ".sample0.npy"), x[:1])
            write_listing(os.path.join(out, name + ".sample0.expected.txt"),
                          expected[:1])
        # One input, or a tuple of them (NAME.input0.npy, ...).
        if isinstance(x, tuple):
            for i, xi in enumerate(x):
                np.save(os.path.join(out, "%s.input%d.npy" % (name, i)), xi)
        else:
            np.save(os.path.join(out, name + ".input.npy"), x)
        write_listing(os.path.join(out, name + ".expected.txt"), expected)
    # A file cut short, and a file that is not a model at all.
    good = models()["conv_bn_relu"].SerializeToString()
    with open(os.path.join(out, "err_truncated.onnx"), "wb") as f:
        f.write(good[:len(good) // 2])
    with open(os.path.join(out, "err_not_a_model.onnx"), "wb") as f:
        f.write(b"this is a text file, not a protobuf\n")


if __name__ == "__main__":
    main()
