// Array-protocol dicts (__array_interface__, __cuda_array_interface__) -> kiln::LaunchArg. The dict
// says where the data is, its element type and byte order, its strides and whether it may be written;
// kiln's kernels read elements in the host's byte order at whole-element offsets from the pointer, so
// anything else is an ArgumentError here rather than a wrong result in the kernel.
#include "array_interface.h"

#include <bit>

#include "errors.h"

namespace kiln::python {

namespace {

// NumPy / array-interface type strings ("<f4") -> Triton's spelling; null when unsupported. The byte
// order is checked apart (byteOrderIsNative).
const char* dtypeOfTypestr(std::string_view t) {
  if (t.size() < 3) return nullptr;
  char kind = t[1];
  std::string_view size = t.substr(2);
  if (kind == 'f') return size == "4" ? "fp32" : size == "2" ? "fp16" : size == "8" ? "fp64" : nullptr;
  if (kind == 'i') return size == "1" ? "i8" : size == "2" ? "i16" : size == "4" ? "i32" : size == "8" ? "i64" : nullptr;
  if (kind == 'u') return size == "1" ? "u8" : size == "2" ? "u16" : size == "4" ? "u32" : size == "8" ? "u64" : nullptr;
  if (kind == 'b' && size == "1") return "i1";
  return nullptr;
}

// '|' (no order: one byte), '=' (native) or the host's own '<' / '>'.
bool byteOrderIsNative(char order) {
  const char native = std::endian::native == std::endian::little ? '<' : '>';
  return order == '|' || order == '=' || order == native;
}

// The array's shape and strides (in bytes; empty when it is C-contiguous), read from the dict.
struct Layout {
  std::vector<int64_t> shape, strides;
  size_t count() const {
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    return n;
  }
};

Layout layoutOf(const py::dict& d) {
  Layout l;
  for (py::handle v : d["shape"].cast<py::tuple>()) l.shape.push_back(v.cast<int64_t>());
  if (d.contains("strides") && !d["strides"].is_none())
    for (py::handle v : d["strides"].cast<py::tuple>()) l.strides.push_back(v.cast<int64_t>());
  return l;
}

std::string tupleText(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// Strides a kernel can follow from the pointer: whole elements, none negative (a kernel indexes
// forward from the first element; a reversed view's elements lie before it). Dimensions of extent 0
// or 1 never move the pointer, so their strides do not matter.
void checkStrides(const Layout& l, size_t itemsize, const ArgSite& site) {
  for (size_t i = 0; i < l.strides.size() && i < l.shape.size(); ++i) {
    if (l.shape[i] <= 1) continue;
    if (l.strides[i] < 0)
      argError(site, "is an array with a negative stride (strides " + tupleText(l.strides) + " bytes), which "
                     "kiln kernels cannot take: pass a copy in order (numpy.ascontiguousarray)");
    if (size_t(l.strides[i]) % itemsize != 0)
      argError(site, "is an array whose strides " + tupleText(l.strides) + " (bytes) are not whole " +
                         std::to_string(itemsize) + "-byte elements, which a kernel cannot index: pass a copy "
                         "(numpy.ascontiguousarray)");
  }
}

// Bytes reachable from the first element: up to the end of its last element.
size_t extent(const Layout& l, size_t itemsize) {
  if (l.count() == 0) return 0;
  if (l.strides.empty()) return l.count() * itemsize;
  int64_t last = 0;
  for (size_t i = 0; i < l.strides.size() && i < l.shape.size(); ++i)
    if (l.strides[i] > 0) last += l.strides[i] * (l.shape[i] - 1);
  return size_t(last) + itemsize;
}

}  // namespace

LaunchArg fromInterface(PyObject* obj, PyObject* interface, bool cuda, const ArgSite& site, const char* pointee) {
  py::dict d = py::reinterpret_borrow<py::dict>(interface);
  py::tuple data = d["data"].cast<py::tuple>();
  std::string typestr = d["typestr"].cast<std::string>();
  py::handle h(obj);
  auto dtypeName = [&] {
    return py::hasattr(h, "dtype") ? py::str(h.attr("dtype")).cast<std::string>() : typestr;
  };
  if (typestr.size() < 3) argError(site, "is an array of '" + typestr + "', which kiln kernels cannot take");
  // Before the dtype: a wrapper (pointee) reinterprets the bits but does not reorder the bytes.
  if (!byteOrderIsNative(typestr[0]))
    argError(site, "is an array of " + dtypeName() + " in " + (typestr[0] == '>' ? "big" : "little") +
                       "-endian byte order ('" + typestr + "'), which kiln kernels would read wrongly: pass it "
                       "in the machine's byte order (x.astype(x.dtype.newbyteorder('=')))");
  const char* dtype = pointee ? pointee : dtypeOfTypestr(typestr);
  if (!dtype) argError(site, "is an array of " + dtypeName() + ", which kiln kernels cannot take");
  const size_t itemsize = size_t(std::stoi(typestr.substr(2)));
  const Layout layout = layoutOf(d);
  checkStrides(layout, itemsize, site);
  uint64_t address = data[0].is_none() ? 0 : data[0].cast<uint64_t>();
  // The protocol does not say which GPU the memory is on; the driver knows for memory of one device (-1:
  // it does not, as for managed memory: the launch then runs on PyTorch's current device).
  LaunchArg a = cuda ? LaunchArg::devicePointer(address, dtype, state().runtime.deviceOf(address))
                     : LaunchArg::hostBuffer(reinterpret_cast<void*>(address), extent(layout, itemsize), dtype);
  // data[1]: the protocol's read-only flag (a read-only NumPy array, np.frombuffer of bytes, a memmap
  // opened with mode 'r'). A launch refuses it only where the kernel stores through the parameter.
  a.readOnly = data.size() > 1 && PyObject_IsTrue(data[1].ptr()) == 1;
  a.what = cuda ? "a CUDA array" : "a NumPy array";
  return a;
}

}  // namespace kiln::python
