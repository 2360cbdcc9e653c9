//===- npu-input-fuzzer.cpp - libFuzzer target for npu-run's input files --===//
//
// Each input is handed to both parsers npu-run runs on files a user gives
// it: the .npy reader (--input) and the device description reader
// (--device). Rejecting an input is the expected outcome; a crash, a
// sanitizer report or a broken round trip is a finding. What a parser
// accepts must survive its writer unchanged: serializeNpy then parseNpy
// gives the same array, toJSON then fromJSON the same device. Linear in the
// input's size.
//
//===----------------------------------------------------------------------===//

#include "npu/Device/DeviceModel.h"
#include "npu/Support/Npy.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstddef>
#include <cstdint>

namespace {

void checkNpyRoundTrip(const npu::NpyArray &array) {
  llvm::Expected<npu::NpyArray> again = npu::parseNpy(npu::serializeNpy(array));
  if (!again)
    llvm::report_fatal_error(
        llvm::Twine("npy: a parsed array's serialization is rejected: ") +
        llvm::toString(again.takeError()));
  if (again->type != array.type || again->shape != array.shape ||
      again->data != array.data)
    llvm::report_fatal_error("npy: the round trip changed the array");
}

void checkDeviceRoundTrip(const npu::DeviceModel &model) {
  llvm::Expected<npu::DeviceModel> again =
      npu::DeviceModel::fromJSON(model.toJSON());
  if (!again)
    llvm::report_fatal_error(
        llvm::Twine("device: toJSON of a parsed model is rejected: ") +
        llvm::toString(again.takeError()));
  if (std::optional<std::string> field = model.findDifference(*again))
    llvm::report_fatal_error(llvm::Twine("device: the round trip changed ") +
                             *field);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  if (llvm::Expected<npu::NpyArray> array = npu::parseNpy(bytes))
    checkNpyRoundTrip(*array);
  else
    llvm::consumeError(array.takeError());
  if (llvm::Expected<npu::DeviceModel> model =
          npu::DeviceModel::parseJSON(bytes))
    checkDeviceRoundTrip(*model);
  else
    llvm::consumeError(model.takeError());
  return 0;
}
