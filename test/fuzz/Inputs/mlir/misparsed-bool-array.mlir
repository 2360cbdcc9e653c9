// MLIR 19 parses `array<i1: 1>` into an attribute without data; printing it
// (here in the verifier's diagnostic) crashes, in mlir-opt-19 too.
func.func @merge(%a: memref<4xi32, #npudev.space<vector>>, %o: memref<4xi32, #npudev.space<vector>>) {
  "npudev.vmerge"(%a, %a, %o) {segments = array<i1: 1, 1, 1>} : (memref<4xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>) -> ()
  return
}
