// kiln::compile: the whole pipeline, top to bottom. Each step's output can be dumped; the IR is
// verified after sema and after every pass, so a broken pass is caught where it breaks.
#include "driver/compile.h"

#include "driver/errors.h"
#include "frontend/ast_dump.h"
#include "frontend/parser.h"
#include "ir/text.h"
#include "passes/passes.h"
#include "sema/sema.h"
#include "sema/signature.h"

namespace kiln {

namespace {

// The target-independent optimisation pipeline, in order.
const char* const kPassPipeline[] = {"canonicalize", "cse", "licm", "canonicalize", "dce"};

void verifyOrThrow(const ir::Function& fn, const std::string& after) {
  if (auto problem = ir::verify(fn)) {
    Diagnostic d = *problem;
    throw InternalError(d.loc, "invalid IR after " + after + ": " + d.message);
  }
}

std::vector<Param> paramsOf(const ir::Function& fn) {
  std::vector<Param> out;
  for (const auto& arg : fn.body.args) out.push_back(Param{arg->name, arg->type.str(), arg->type.isPtr()});
  return out;
}

}  // namespace

Result<Kernel> compile(const Source& source, std::string_view kernel, std::string_view signature,
                       const CompileOptions& options) {
  return guarded<Kernel>([&]() -> Kernel {
    auto impl = std::make_shared<Kernel::Impl>();
    impl->name = std::string(kernel);
    impl->signature = std::string(signature);

    // 1. front end: Python source -> AST
    auto file = makeSource(source.name, source.text);
    std::unique_ptr<ast::Module> module = frontend::parseModule(file);
    if (const ast::FunctionDef* def = module->findFunction(impl->name)) impl->ast = frontend::dump(*def);

    // 2. sema: specialize for the signature and lower to Tile IR
    // Errors in the signature point into it, shown as a source of its own: "<signature>:1:8".
    sema::Signature sig = sema::parseSignature(signature, makeSource("<signature>", std::string(signature)));
    sema::Options semaOptions{options.num_warps, options.num_stages};
    impl->module = sema::lowerKernel(*module, kernel, sig, semaOptions);
    ir::Function& fn = *impl->module->functions.front();
    verifyOrThrow(fn, "sema");
    impl->irBeforePasses = ir::print(*impl->module);

    // 3. target-independent passes
    if (options.optimize) {
      for (const char* pass : kPassPipeline) {
        passes::runPass(pass, fn);
        verifyOrThrow(fn, std::string("pass '") + pass + "'");
        for (const std::string& wanted : options.dump_after)
          if (wanted == pass) impl->dumps[std::string("after-") + pass] += ir::print(*impl->module);
      }
    }
    impl->ir = ir::print(*impl->module);
    impl->params = paramsOf(fn);
    return Kernel(std::move(impl));
  });
}

}  // namespace kiln
