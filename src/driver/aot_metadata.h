// The pieces of generated C that a variant's header and the dispatcher share: the launch function's
// prototype, C array literals, comments, and the metadata block by which `kiln aot link` reads a
// variant back from its header.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "driver/aot_variant.h"

namespace kiln::aot {

// "CUresult NAME_launch(CUstream stream, CUdeviceptr x_ptr, int32_t n)"; with the grid as arguments,
// "unsigned int grid_x, unsigned int grid_y, unsigned int grid_z" follow the stream.
std::string launchPrototype(const Variant& v, const std::string& name);
// The arguments as a call passes them on: "stream, x_ptr, n".
std::string launchArguments(const Variant& v);

// `text` made safe inside a C block comment (no "*/", no control characters).
std::string commentSafe(const std::string& text);
// A brace-enclosed C initializer of the bytes, 20 a line.
std::string byteInitializer(const uint8_t* data, size_t size);

// The metadata block (a C comment) that describes `v`, and its inverse. readMetadata returns "" on
// success, or why `header` holds no (or no valid) variant.
std::string metadataBlock(const Variant& v);
std::string readMetadata(const std::string& header, Variant& out);

}  // namespace kiln::aot
