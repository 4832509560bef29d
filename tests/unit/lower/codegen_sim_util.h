// What the end-to-end simulator tests share (codegen_sim_test.cpp, codegen_sim_wgmma_test.cpp): an
// example kernel's Tile IR (ptxas_inputs) through layouts, the GPU passes and PTX emission for a target,
// and a CTA simulator run of it with named buffers and parameters.
#pragma once
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <map>

#include "assign/assign_layouts.h"
#include "codegen_test_util.h"
#include "lower/tensor_maps.h"
#include "ops_sim.h"
#include "ir/scalar_eval.h"
#include "schedule/schedule.h"

namespace kiln::lower::test {

namespace fs = std::filesystem;

struct Kernel {
  std::string name;  // the entry
  std::string ptx;
  EntryInfo info;
  std::vector<std::string> params;         // the kernel's parameter names, in order
  std::vector<TensorMapSpec> tensorMaps;  // what its launcher would encode (tensor_map ops)
};

inline std::string inputText(const std::string& input) {
  std::ifstream in(fs::path(KILN_SOURCE_DIR) / "tests" / "unit" / "lower" / "ptxas_inputs" / (input + ".tir"));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Tile IR text (an input's, perhaps edited) through layouts, the GPU passes and PTX emission.
// `persistent`, `warpSpecialize`: as compiled with those CompileOptions (persistent: the grid parameters last).
inline Kernel lowerText(const std::string& name, const std::string& text, int numWarps, int numStages, ptx::Target target,
                        bool persistent = false, bool warpSpecialize = false) {
  auto m = ir::parseModule(makeSource(name + ".tir", text));
  ir::Function& f = *m->functions.at(0);
  {
    analysis::AxisInfoAnalysis axis(f);
    assignLayouts(f, axis, numWarps, target);
  }
  for (const std::string& pass : schedule::gpuPassNames())  // in the driver's order
    schedule::runGpuPass(pass, f, schedule::GpuContext{target, numWarps, numStages, warpSpecialize, true, persistent});
  Kernel k;
  k.name = f.name;
  k.ptx = emitPtx(f, target, numWarps, k.info);
  for (unsigned i = 0; i < f.body.numArgs(); ++i) k.params.push_back(f.body.arg(i)->name);
  k.tensorMaps = tensorMapSpecs(f);
  return k;
}

inline Kernel lowerInput(const std::string& input, int numWarps = 4, int numStages = 1, ptx::Target target = ptx::kSm80) {
  return lowerText(input, inputText(input), numWarps, numStages, target);
}

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T>
std::vector<T> valuesOf(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

struct SimRun {
  Kernel k;
  CtaSim sim;
  explicit SimRun(Kernel kk) : k(std::move(kk)), sim(k.ptx, k.info.numWarps * 32, k.info.sharedBytes) {}
  std::map<std::string, uint64_t> values;  // what param() set, by parameter name
  void param(const std::string& name, uint64_t v) {
    values[name] = v;
    sim.setParam(k.name + "_" + name, v);
  }
  // The kernel's tensor maps from the parameters set so far, as the launcher encodes them
  // (driver/tensor_map_args.cpp): TMA's order (innermost first), strides in bytes.
  void encodeTensorMaps() {
    for (size_t i = 0; i < k.tensorMaps.size(); ++i) {
      const TensorMapSpec& s = k.tensorMaps[i];
      auto value = [&](const TensorMapOperand& o) {
        return o.param >= 0 ? values.at(k.params.at(size_t(o.param))) : uint64_t(o.value);
      };
      CtaSim::TensorMap m;
      m.address = value(s.base);
      m.elemBytes = ir::bitWidth(s.elem) / 8;
      for (size_t d = s.shape.size(); d-- > 0;) {
        m.dims.push_back(value(s.shape[d]));
        m.box.push_back(uint32_t(s.box[d]));
        if (d + 1 < s.shape.size()) m.strides.push_back(value(s.strides[d]) * uint64_t(m.elemBytes));
      }
      m.swizzle = s.swizzle;
      sim.setTensorMap(k.name + "_tmap" + std::to_string(i), m);
    }
  }
  template <typename T>
  uint64_t buffer(const std::string& name, const std::vector<T>& v) {
    uint64_t base = sim.addBuffer(bytesOf(v));
    param(name, base);
    return base;
  }
  template <typename T>
  std::vector<T> read(uint64_t base) {
    return valuesOf<T>(sim.buffer(base));
  }
};

inline std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// randomFloats rounded to fp16, as bits.
inline std::vector<uint16_t> randomHalves(size_t n, uint32_t seed) {
  std::vector<uint16_t> out;
  for (float x : randomFloats(n, seed)) out.push_back(uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(x))));
  return out;
}

}  // namespace kiln::lower::test
