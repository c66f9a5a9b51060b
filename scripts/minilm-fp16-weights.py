# Writes packages/model-all-minilm-l6-v2/model-fp16.onnx from the fp32 export (scripts/fetch-minilm-model.sh
# runs it): every float tensor of 1,024 values or more is stored as float16 and cast back to float32
# by a Cast node, which onnxruntime folds into a float32 weight when the session loads. The file is
# half the size; the arithmetic stays fp32 (docs/embeddings.md, "Parity with the reference").
# Needs onnx 1.23.2 and numpy (pip install onnx==1.23.2 numpy): another onnx may write other bytes.
#
# Usage: python3 scripts/minilm-fp16-weights.py FP32_ONNX OUT_ONNX
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SMALLEST = 1024


def main():
    source, target = sys.argv[1], sys.argv[2]
    model = onnx.load(source)
    graph = model.graph
    initializers, casts = [], []
    for tensor in graph.initializer:
        if tensor.data_type != TensorProto.FLOAT or int(np.prod(tensor.dims)) < SMALLEST:
            initializers.append(tensor)
            continue
        half = numpy_helper.from_array(numpy_helper.to_array(tensor).astype(np.float16), f"{tensor.name}_fp16")
        initializers.append(half)
        casts.append(helper.make_node("Cast", [half.name], [tensor.name], to=TensorProto.FLOAT, name=f"{tensor.name}_cast"))
    nodes = list(graph.node)
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    onnx.checker.check_model(model)
    onnx.save(model, target)
    print(f"minilm-fp16-weights: {len(casts)} tensors stored as float16 in {target}")


if __name__ == "__main__":
    main()
