"""pt2c exporter: runs a model.py with real tensors and writes a .pt2c artifact.

Run as `python -m pt2c_exporter MODEL.py -o OUT.pt2c` (see ../README.md). Modules:
  cli            command line, error reporting, progress line
  export         the pipeline: load, trace, check, write
  model_loader   imports model.py and checks its contract (`model`, `example_inputs`)
  signatures     model.py's `signatures` (or example_inputs) -> the graphs to trace
  dynamic_shapes model.py's dynamic_shapes: dims with names and ranges, validated
  dynamic_trace  traces at other sizes, same-graph check, sizes made symbolic
  symbolic_fit   integer expressions of the dims fitted to the traced values
  data_dependent nonzero's row count as a symbol (u0, u1, ...), forced in retraces
  mask_indexing  x[mask] and masked_select recorded as nonzero and index
  tracer         the TorchDispatchMode that records every ATen call
  graph_builder  values, inputs and nodes of the graph being recorded
  weight_registry  parameters, buffers and constants, found by identity or storage
  tensors        tensor identity, storage identity and metadata
  arguments      one schema argument -> artifact Argument
  schema         declared argument types, parsed from the schema string
  dtypes         torch dtype / layout / memory format -> artifact numbering
  outputs        model outputs -> flat, named OutputSpecs
  source_location  the user's frame behind each ATen call
  report         the draft report (what tracing had to assume): entries, grouping
  report_text    the report as text (--strict, --print-report; like `pt2c report`)
  op_findings    DATA_DEPENDENT, RANDOMNESS, UNSUPPORTED_OP findings of one ATen call
  aten_op_list   the ops the aten dialect has (ir/aten/aten_ops.txt)
  fast_path      steers nn.Transformer* / MultiheadAttention / LSTM off their fused kernels
  restrides      as_strided_ calls that leave a tensor as it was (not recorded)
  value_escapes  tolist()/numpy() reads, which make no ATen call
  weights        weights blob layout, deduplicated by storage
  tensor_bytes   a weight's bytes as the artifact stores them (no pt2c_pb2)
  weights_file   `python -m pt2c_exporter weights`: an --external-weights model's weights
                 file remade from model.py and the compile's recipe
  writer         file layout, atomic write
  reader         reads an artifact back (tests, debugging)
  dump           `python -m pt2c_exporter.dump FILE.pt2c`: the artifact as text
  user_errors    exporter errors and user tracebacks trimmed to the user's frames
"""
