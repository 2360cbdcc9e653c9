# Helpers for npu-mlir targets, following the CIRCT pattern: libraries are
# installed into npu-mlir's own export set (NPUTargets) rather than MLIR's, so
# a downstream compiler can `find_package(NPU)` next to `find_package(MLIR)`.

include_guard()

# Run mlir-tblgen on a .td file under dialects/ and write OFN into the current
# binary directory. Usage: npu_tablegen(<td relative to dialects/> <ofn> args…)
function(npu_tablegen td ofn)
  set(LLVM_TARGET_DEFINITIONS ${NPU_TD_DIR}/${td})
  mlir_tablegen(${ofn} ${ARGN})
  set(TABLEGEN_OUTPUT ${TABLEGEN_OUTPUT} PARENT_SCOPE)
endfunction()

# Generate Markdown reference docs from ODS into build/docs/<name>.md.
function(npu_doc td name)
  set(LLVM_TARGET_DEFINITIONS ${NPU_TD_DIR}/${td})
  tablegen(MLIR ${name}.md ${ARGN})
  set(out ${PROJECT_BINARY_DIR}/docs/${name}.md)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_BINARY_DIR}/${name}.md ${out}
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/${name}.md)
  add_custom_target(${name}DocGen DEPENDS ${out})
  add_dependencies(npu-doc ${name}DocGen)
endfunction()

function(add_npu_library_install name)
  install(TARGETS ${name}
    EXPORT NPUTargets
    LIBRARY DESTINATION lib
    ARCHIVE DESTINATION lib
    RUNTIME DESTINATION bin)
  set_property(GLOBAL APPEND PROPERTY NPU_EXPORTS ${name})
endfunction()

# A library of npu-mlir: built like an MLIR library, installed into NPUTargets.
function(add_npu_library name)
  add_mlir_library(${ARGV} DISABLE_INSTALL)
  target_include_directories(${name} INTERFACE $<INSTALL_INTERFACE:include>)
  if(NPU_SANITIZERS)
    target_compile_options(${name} INTERFACE
      "$<INSTALL_INTERFACE:${NPU_SANITIZER_FLAGS}>")
    target_link_options(${name} INTERFACE
      "$<INSTALL_INTERFACE:-fsanitize=${NPU_SANITIZERS}>")
  endif()
  add_npu_library_install(${name})
endfunction()

function(add_npu_tool name)
  add_llvm_executable(${name} ${ARGN})
  install(TARGETS ${name} EXPORT NPUTargets RUNTIME DESTINATION bin)
  set_property(GLOBAL APPEND PROPERTY NPU_EXPORTS ${name})
endfunction()
