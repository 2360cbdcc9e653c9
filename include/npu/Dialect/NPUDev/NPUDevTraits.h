//===- NPUDevTraits.h - which unit an npudev op needs -----------*- C++ -*-===//
//
// Marker traits (NPUDevBase.td): the launch verifier rejects an op whose
// unit the launch's cores lack.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPUDEV_NPUDEVTRAITS_H
#define NPU_DIALECT_NPUDEV_NPUDEVTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace npu::dev {

/// The op runs on the vector unit.
template <typename ConcreteType>
class VectorUnit : public mlir::OpTrait::TraitBase<ConcreteType, VectorUnit> {};

/// The op runs on the matrix (cube) unit.
template <typename ConcreteType>
class CubeUnit : public mlir::OpTrait::TraitBase<ConcreteType, CubeUnit> {};

} // namespace npu::dev

#endif // NPU_DIALECT_NPUDEV_NPUDEVTRAITS_H
