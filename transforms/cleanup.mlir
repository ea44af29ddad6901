// Reusable transform-dialect library: the clean-up every scheduled halide_mlir pipeline ends with.
// codegen/transform.py copies these named sequences into each emitted script (so the script runs as it is
// under `mlir-opt --transform-interpreter`); you can also load this file with
// `--transform-preload-library=transform-library-paths=transforms/cleanup.mlir`.
module attributes {transform.with_named_sequence} {
  // Masked vector ops from edge tiles become plain masked loads/stores first: folding patterns that run
  // while they are still inside `vector.mask` regions leave masks the LLVM lowering rejects.
  transform.named_sequence @halide_cleanup(%fn: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %fn {
      transform.apply_patterns.vector.lower_masked_transfers
    } : !transform.any_op
    // sink_ops: an op on broadcast operands becomes the scalar op, then one broadcast (auto-vectorization's
    // uniform values: analysis/vectorize.py); LICM then takes the scalar work out of the loops.
    transform.apply_patterns to %fn {
      transform.apply_patterns.vector.sink_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %fn : !transform.any_op
    transform.yield
  }
}
