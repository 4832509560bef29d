// The API boundary: runs a step and turns every exception into a kiln::Error value.
#pragma once
#include <functional>
#include <new>

#include "kiln/kiln.h"
#include "support/diagnostic.h"
#include "support/warning.h"

namespace kiln {

Error toError(const Diagnostic& d);
Warning toWarning(const CompilerWarning& w);

template <class T>
Result<T> guarded(const std::function<T()>& step) {
  try {
    return step();
  } catch (const CompileError& e) {
    return toError(e.diag());
  } catch (const InternalError& e) {
    return toError(e.diag());
  } catch (const std::bad_alloc&) {
    return toError(Diagnostic{Diagnostic::Kind::Internal, {}, "out of memory", {}});
  } catch (const std::exception& e) {
    return toError(Diagnostic{Diagnostic::Kind::Internal, {}, std::string("unexpected exception: ") + e.what(), {}});
  }
}

}  // namespace kiln
