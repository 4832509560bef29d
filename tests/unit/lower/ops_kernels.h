// GPU IR test kernels for the conversion, reduction and dot lowerings: tiles loaded from and stored to
// row-major buffers in chosen layouts (row-major offsets come from an arange reshaped into the layout),
// with the op under test in between.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/text.h"
#include "layout/linear_layout.h"
#include "layout/named_layouts.h"

namespace kiln::lower::test {

inline std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += std::to_string(d) + "x";
  return s;
}

inline int64_t numelOf(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// tensor<4x8xf32, {layout}>
inline std::string tileType(const std::vector<int64_t>& shape, const std::string& elem, const layout::LinearLayout& l) {
  return "tensor<" + shapeText(shape) + elem + ", " + l.str() + ">";
}

// Lines defining %NAME_p: the pointers base + row-major offset of every element of a `shape` tile, in `l`.
inline std::string pointersIn(const std::string& name, const std::string& base, const std::vector<int64_t>& shape,
                              const std::string& elem, const layout::LinearLayout& l) {
  const int64_t n = numelOf(shape);
  std::ostringstream s;
  layout::LinearLayout flat = l.reshapeOuts({{"dim0", int32_t(n)}});
  s << "  %" << name << "_i = arange {end = " << n << ", start = 0} : " << tileType({n}, "i32", flat) << "\n";
  std::string idx = "%" + name + "_i";
  if (shape.size() > 1) {
    s << "  %" << name << "_r = reshape %" << name << "_i : " << tileType(shape, "i32", l) << "\n";
    idx = "%" + name + "_r";
  }
  s << "  %" << name << "_s = splat %" << base << " : " << tileType(shape, "ptr<" + elem + ">", l) << "\n";
  s << "  %" << name << "_p = ptr_add %" << name << "_s, " << idx << " : " << tileType(shape, "ptr<" + elem + ">", l) << "\n";
  return s.str();
}

// k(x, y): y = convert_layout(x) from layout src to dst.
inline std::string convertKernel(const std::vector<int64_t>& shape, const std::string& elem, const layout::LinearLayout& src,
                                 const layout::LinearLayout& dst) {
  std::ostringstream s;
  s << "func @k(%x: ptr<" << elem << ">, %y: ptr<" << elem << ">) {\n";
  s << pointersIn("a", "x", shape, elem, src);
  s << "  %v = load %a_p : " << tileType(shape, elem, src) << "\n";
  s << "  %w = convert_layout %v : " << tileType(shape, elem, dst) << "\n";
  s << pointersIn("b", "y", shape, elem, dst);
  s << "  store %b_p, %w\n  return\n}\n";
  return s.str();
}

// k(x, y): y = reduce(x, axis, kind) with x in layout l; the result (type `out`) is stored row-major
// in sliceLayout(l, axis), or as a scalar for a rank-1 x.
inline std::string reduceKernel(const std::vector<int64_t>& shape, const std::string& elem, const std::string& out,
                                const layout::LinearLayout& l, int axis, const std::string& kind) {
  std::ostringstream s;
  s << "func @k(%x: ptr<" << elem << ">, %y: ptr<" << out << ">) {\n";
  s << pointersIn("a", "x", shape, elem, l);
  s << "  %v = load %a_p : " << tileType(shape, elem, l) << "\n";
  std::string attrs = " {axis = " + std::to_string(axis) + ", kind = \"" + kind + "\"}";
  if (shape.size() == 1) {
    s << "  %r = reduce %v" << attrs << " : " << out << "\n";
    s << "  store %y, %r\n";
  } else {
    std::vector<int64_t> rs = shape;
    rs.erase(rs.begin() + axis);
    layout::LinearLayout rl = layout::sliceLayout(l, axis);
    s << "  %r = reduce %v" << attrs << " : " << tileType(rs, out, rl) << "\n";
    s << pointersIn("b", "y", rs, out, rl);
    s << "  store %b_p, %r\n";
  }
  s << "  return\n}\n";
  return s.str();
}

// k(x, y, z): `op` (scan or reduce_combine, with `attrs`) of the tiles x (type `elem`) and, when `withIndex`,
// the row-major element offsets (i32), in layout l, by the combine region `region` (its text from the
// argument line to the closing brace). Result 0 is stored to y, result 1 to z (row-major, in the result's
// layout: l for a scan, sliceLayout(l, axis) or a scalar for reduce_combine).
inline std::string combineKernel(const std::vector<int64_t>& shape, const std::string& elem, const layout::LinearLayout& l,
                                 const std::string& op, const std::string& attrs, bool withIndex, const std::string& region) {
  const int axis = std::stoi(attrs.substr(attrs.find("axis = ") + 7));
  std::vector<int64_t> rs = shape;
  layout::LinearLayout rl = l;
  if (op == "reduce_combine") {
    rs.erase(rs.begin() + axis);
    rl = layout::sliceLayout(l, axis);
  }
  auto type = [&](const std::string& e) { return rs.empty() ? e : tileType(rs, e, rl); };
  std::ostringstream s;
  s << "func @k(%x: ptr<" << elem << ">, %y: ptr<" << elem << ">, %z: ptr<i32>) {\n";
  s << pointersIn("a", "x", shape, elem, l);
  s << "  %v = load %a_p : " << tileType(shape, elem, l) << "\n";
  const std::string idx = shape.size() > 1 ? "%a_r" : "%a_i";
  s << "  " << (withIndex ? "%r0, %r1" : "%r0") << " = " << op << " %v" << (withIndex ? ", " + idx : "") << " {" << attrs
    << "} : " << type(elem) << (withIndex ? ", " + type("i32") : "") << " {\n" << region << "\n";
  if (rs.empty()) {
    s << "  store %y, %r0\n";
    if (withIndex) s << "  store %z, %r1\n";
  } else {
    s << pointersIn("b", "y", rs, elem, rl) << "  store %b_p, %r0\n";
    if (withIndex) s << pointersIn("c", "z", rs, "i32", rl) << "  store %c_p, %r1\n";
  }
  s << "  return\n}\n";
  return s.str();
}

struct DotShapes {
  std::vector<int64_t> a, b, c;
};

// A Tile IR function holding only `dot` (no layouts), for asking dotLayout about it.
inline std::string bareDot(const DotShapes& sh, const std::string& in, const std::string& acc, const std::string& precision) {
  std::ostringstream s;
  std::string attrs = precision.empty() ? "" : " {input_precision = \"" + precision + "\"}";
  auto zero = [](const std::string& t) { return t[0] == 'f' || t[0] == 'b' ? "0.0" : "0"; };
  s << "func @d(%x: ptr<f32>) {\n";
  s << "  %a = constant {value = " << zero(in) << "} : tensor<" << shapeText(sh.a) << in << ">\n";
  s << "  %b = constant {value = " << zero(in) << "} : tensor<" << shapeText(sh.b) << in << ">\n";
  s << "  %c = constant {value = " << zero(acc) << "} : tensor<" << shapeText(sh.c) << acc << ">\n";
  s << "  %d = dot %a, %b, %c" << attrs << " : tensor<" << shapeText(sh.c) << acc << ">\n";
  s << "  return\n}\n";
  return s.str();
}

// k(a, b, c, d): d = dot(a, b, c) with the given layouts (normally dotLayout's).
inline std::string dotKernel(const DotShapes& sh, const std::string& in, const std::string& acc, const std::string& precision,
                             const layout::LinearLayout& la, const layout::LinearLayout& lb, const layout::LinearLayout& lc) {
  std::ostringstream s;
  std::string attrs = precision.empty() ? "" : " {input_precision = \"" + precision + "\"}";
  s << "func @k(%pa: ptr<" << in << ">, %pb: ptr<" << in << ">, %pc: ptr<" << acc << ">, %pd: ptr<" << acc << ">) {\n";
  s << pointersIn("a", "pa", sh.a, in, la) << "  %va = load %a_p : " << tileType(sh.a, in, la) << "\n";
  s << pointersIn("b", "pb", sh.b, in, lb) << "  %vb = load %b_p : " << tileType(sh.b, in, lb) << "\n";
  s << pointersIn("c", "pc", sh.c, acc, lc) << "  %vc = load %c_p : " << tileType(sh.c, acc, lc) << "\n";
  s << "  %vd = dot %va, %vb, %vc" << attrs << " : " << tileType(sh.c, acc, lc) << "\n";
  s << pointersIn("d", "pd", sh.c, acc, lc) << "  store %d_p, %vd\n  return\n}\n";
  return s.str();
}

}  // namespace kiln::lower::test
