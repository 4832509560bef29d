// Linking other modules' @jit functions and constants into a kernel's module (link.h). The linked
// functions keep their own file's locations, so errors inside them point into that file; a linked
// name contains a '.' or ':' and so cannot clash with any Python identifier of the kernel's module.
#include "driver/link.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "driver/compile.h"
#include "frontend/parser.h"
#include "support/diagnostic.h"

namespace kiln {

namespace {

using Name = ModuleImports::Name;

// Every location in e becomes loc.
void relocate(ast::Expr& e, const SourceLoc& loc) {
  e.loc = loc;
  for (ast::ExprPtr& c : e.elts)
    if (c) relocate(*c, loc);
  for (ast::Keyword& k : e.keywords)
    if (k.value) relocate(*k.value, loc);
}

// A constant as the expression a module would have assigned it with (`-3` is Neg(Int 3)).
ast::ExprPtr literal(const Name& n, const SourceLoc& loc) {
  auto make = [&](ast::ExprKind k) { return std::make_unique<ast::Expr>(k, loc); };
  auto negate = [&](ast::ExprPtr e) {
    ast::ExprPtr u = make(ast::ExprKind::UnaryOp);
    u->unaryOp = ast::UnaryOp::Neg;
    u->elts.push_back(std::move(e));
    return u;
  };
  switch (n.kind) {
    case Name::Kind::Int: {
      ast::ExprPtr e = make(ast::ExprKind::Int);
      e->intValue = n.i < 0 ? uint64_t(0) - uint64_t(n.i) : uint64_t(n.i);
      return n.i < 0 ? negate(std::move(e)) : std::move(e);
    }
    case Name::Kind::Float: {
      ast::ExprPtr e = make(ast::ExprKind::Float);
      e->floatValue = std::isnan(n.f) ? n.f : std::fabs(n.f);
      return !std::isnan(n.f) && std::signbit(n.f) ? negate(std::move(e)) : std::move(e);
    }
    case Name::Kind::Bool: {
      ast::ExprPtr e = make(ast::ExprKind::Bool);
      e->intValue = n.i != 0;
      return e;
    }
    case Name::Kind::String: {
      ast::ExprPtr e = make(ast::ExprKind::Str);
      e->str = n.text;
      return e;
    }
    case Name::Kind::None: return make(ast::ExprKind::NoneLit);
    case Name::Kind::Expr: {
      // Parsed as the value of a module constant; its locations point at the use that linked it.
      std::unique_ptr<ast::Module> m =
          frontend::parseModule(makeSource(loc.file ? loc.file->name : "<value>", "_ = " + n.text + "\n"));
      if (m->globals.size() != 1 || !m->globals[0].value)
        throw InternalError(loc, "linking: '" + n.name + "' has no value expression");
      ast::ExprPtr e = std::move(m->globals[0].value);
      relocate(*e, loc);
      return e;
    }
    case Name::Kind::Function:
    case Name::Kind::Alias:
    case Name::Kind::Unsupported: break;
  }
  throw InternalError(loc, "linking: '" + n.name + "' is not a constant");
}

// Names a target binds (`a`, `a, b`); subscripts and attributes bind none.
void collectStores(const ast::Expr& target, std::set<std::string>& out) {
  if (target.kind == ast::ExprKind::Name) out.insert(target.name);
  if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List)
    for (const ast::ExprPtr& e : target.elts)
      if (e) collectStores(*e, out);
}

// Python's rule: a name assigned anywhere in a function is local to all of it.
void collectAssigned(const ast::Body& body, std::set<std::string>& out) {
  for (const ast::StmtPtr& s : body) {
    for (const ast::ExprPtr& t : s->targets)
      if (t) collectStores(*t, out);
    collectAssigned(s->body, out);
    collectAssigned(s->orelse, out);
  }
}

class Linker {
 public:
  Linker(ast::Module& main, const ModuleImports& imports) : main_(main) {
    mainFile_ = main.file ? main.file->name : "";
    for (const Name& n : imports.names) entries_[{n.file, n.name}] = &n;
    for (const ModuleImports::Module& m : imports.modules) modules_[m.id()] = &m;
  }

  void run(std::string_view kernel) {
    for (auto it = main_.functions.rbegin(); it != main_.functions.rend(); ++it)
      if ((*it)->name == kernel) {
        work_.push_back({mainFile_, it->get(), ""});
        break;
      }
    // @jit functions passed as arguments ("@fn_3" in the signature): linked, and named so in main_.
    for (const auto& [key, n] : entries_)
      if (key.first == mainFile_ && key.second.rfind('@', 0) == 0 && n->kind == Name::Kind::Function) {
        ast::GlobalAssign g;
        g.name = key.second;
        g.value = std::make_unique<ast::Expr>(ast::ExprKind::Name, SourceLoc{});
        g.value->name = linkFunction(n->definedIn, n->text, SourceLoc{});
        main_.globals.push_back(std::move(g));
      }
    while (!work_.empty()) {
      Work w = std::move(work_.back());
      work_.pop_back();
      if (w.fn) linkBody(w.file, *w.fn);
      else linkGlobal(w.file, w.global);
    }
  }

 private:
  // A function to visit, or (fn null) the global of main_ named `global` whose value is to visit.
  struct Work {
    std::string file;
    ast::FunctionDef* fn = nullptr;
    std::string global;
  };

  const std::string& moduleName(const std::string& file) const {
    auto it = modules_.find(file);
    return it == modules_.end() ? file : it->second->name;
  }

  ast::Module& parsed(const std::string& file, const SourceLoc& loc) {
    auto it = parsed_.find(file);
    if (it != parsed_.end()) return *it->second;
    auto m = modules_.find(file);
    if (m == modules_.end()) throw InternalError(loc, "linking: the binding gave no source for " + file);
    auto& slot = parsed_[file];
    const Source& source = m->second->source;
    slot = frontend::parseModule(makeSource(source.name, source.text, source.block));
    return *slot;
  }

  void linkBody(const std::string& file, ast::FunctionDef& fn) {
    if (!visited_.insert(&fn).second) return;
    std::set<std::string> locals;
    for (const ast::Param& p : fn.params) locals.insert(p.name);
    collectAssigned(fn.body, locals);
    const std::set<std::string> none;
    for (ast::Param& p : fn.params) {
      annotation(file, p.annotation);
      expr(file, none, p.defaultValue);  // evaluated in the module's scope, as Python does
    }
    body(file, locals, fn.body);
  }

  void linkGlobal(const std::string& file, const std::string& name) {
    for (size_t i = main_.globals.size(); i-- > 0;)
      if (main_.globals[i].name == name) {
        // Moved out while visited: linking may append to main_.globals (indices stay valid).
        ast::ExprPtr value = std::move(main_.globals[i].value);
        expr(file, {}, value);
        main_.globals[i].value = std::move(value);
        return;
      }
  }

  void body(const std::string& file, const std::set<std::string>& locals, ast::Body& b) {
    for (ast::StmtPtr& s : b) {
      for (ast::ExprPtr& t : s->targets) target(file, locals, t);
      expr(file, locals, s->value);
      annotation(file, s->annotation);
      expr(file, locals, s->msg);
      body(file, locals, s->body);
      body(file, locals, s->orelse);
    }
  }

  void target(const std::string& file, const std::set<std::string>& locals, ast::ExprPtr& t) {
    if (!t || t->kind == ast::ExprKind::Name) return;
    if (t->kind == ast::ExprKind::Tuple || t->kind == ast::ExprKind::List) {
      for (ast::ExprPtr& e : t->elts) target(file, locals, e);
      return;
    }
    expr(file, locals, t);  // a[i] = ...: `a` and `i` are read
  }

  // A string annotation ("tl.constexpr") of a linked module reads through that module's imports.
  void annotation(const std::string& file, ast::ExprPtr& a) {
    if (!a || a->kind != ast::ExprKind::Str) return expr(file, {}, a);
    if (file == mainFile_) return;
    size_t dot = a->str.find('.');
    const ast::Module& m = parsed(file, a->loc);
    auto it = m.aliases.find(a->str.substr(0, dot));
    if (it != m.aliases.end()) a->str = it->second + (dot == std::string::npos ? "" : a->str.substr(dot));
  }

  // `a.b.c` when e is a chain of attributes over a name that is not local.
  static bool chain(const ast::Expr& e, const std::set<std::string>& locals, std::string& out) {
    if (e.kind == ast::ExprKind::Name) {
      out = e.name;
      return !locals.count(e.name);
    }
    if (e.kind != ast::ExprKind::Attribute || e.elts.empty() || !e.elts[0] || !chain(*e.elts[0], locals, out))
      return false;
    out += "." + e.name;
    return true;
  }

  void expr(const std::string& file, const std::set<std::string>& locals, ast::ExprPtr& e) {
    if (!e) return;
    if (e->kind == ast::ExprKind::Name) {
      if (!locals.count(e->name))
        if (std::optional<std::string> renamed = resolve(file, e->name, e->loc)) e->name = *renamed;
      return;
    }
    std::string path;
    if (e->kind == ast::ExprKind::Attribute && chain(*e, locals, path))
      if (auto it = entries_.find({file, path}); it != entries_.end()) {
        auto name = std::make_unique<ast::Expr>(ast::ExprKind::Name, e->loc);
        name->name = materialize(file, path, *it->second, e->loc);
        e = std::move(name);
        return;
      }
    for (ast::ExprPtr& c : e->elts) expr(file, locals, c);
    for (ast::Keyword& k : e->keywords) expr(file, locals, k.value);
  }

  // What a free name of `file` becomes in main_ (nothing: it stays as written).
  std::optional<std::string> resolve(const std::string& file, const std::string& n, const SourceLoc& loc) {
    if (auto it = entries_.find({file, n}); it != entries_.end()) return materialize(file, n, *it->second, loc);
    if (file == mainFile_) {
      reachMain(n);
      return std::nullopt;
    }
    const std::string asGlobal = moduleName(file) + ":" + n, asFunction = moduleName(file) + "." + n;
    if (defined_.count(asGlobal)) return asGlobal;
    if (defined_.count(asFunction)) return asFunction;
    ast::Module& m = parsed(file, loc);
    // In sema's order: globals, @jit functions, plain functions, imports.
    for (auto it = m.globals.rbegin(); it != m.globals.rend(); ++it)
      if (it->name == n) {
        ast::GlobalAssign g = std::move(*it);
        g.name = asGlobal;
        main_.globals.push_back(std::move(g));
        defined_.insert(asGlobal);
        work_.push_back({file, nullptr, asGlobal});
        return asGlobal;
      }
    for (const auto& f : m.functions)
      if (f && f->name == n) return linkFunction(file, n, loc);
    for (auto it = m.plainFunctions.rbegin(); it != m.plainFunctions.rend(); ++it)
      if (it->name == n) {
        main_.plainFunctions.push_back({asGlobal, it->loc});
        defined_.insert(asGlobal);
        return asGlobal;
      }
    if (auto it = m.aliases.find(n); it != m.aliases.end()) {
      main_.aliases[asGlobal] = it->second;
      defined_.insert(asGlobal);
      return asGlobal;
    }
    return std::nullopt;  // a builtin (range, min, ...), or undefined: sema says so at the use
  }

  // A name of the kernel's own module: sema finds it; what it refers to is visited for imports too.
  void reachMain(const std::string& n) {
    for (auto it = main_.globals.rbegin(); it != main_.globals.rend(); ++it)
      if (it->name == n) {
        if (reachedGlobals_.insert(n).second) work_.push_back({mainFile_, nullptr, n});
        return;
      }
    for (auto it = main_.functions.rbegin(); it != main_.functions.rend(); ++it)
      if ((*it)->name == n) {
        if (!visited_.count(it->get())) work_.push_back({mainFile_, it->get(), ""});
        return;
      }
  }

  std::string linkFunction(const std::string& file, const std::string& fname, const SourceLoc& loc) {
    if (file == mainFile_) {
      reachMain(fname);
      return fname;
    }
    const std::string name = moduleName(file) + "." + fname;
    if (defined_.count(name)) return name;
    ast::Module& m = parsed(file, loc);
    for (size_t i = m.functions.size(); i-- > 0;)
      if (m.functions[i] && m.functions[i]->name == fname) {
        std::unique_ptr<ast::FunctionDef> fn = std::move(m.functions[i]);
        m.functions.erase(m.functions.begin() + std::ptrdiff_t(i));
        fn->name = name;
        work_.push_back({file, fn.get(), ""});
        main_.functions.push_back(std::move(fn));
        defined_.insert(name);
        return name;
      }
    throw CompileError(loc, "kiln found no @jit function '" + fname + "' in " + modules_.at(file)->source.name +
                                " (module '" + moduleName(file) + "')");
  }

  std::string materialize(const std::string& file, const std::string& ref, const Name& n, const SourceLoc& loc) {
    if (n.kind == Name::Kind::Function) return linkFunction(n.definedIn, n.text, loc);
    if (n.kind == Name::Kind::Unsupported) throw CompileError(loc, n.text);
    const std::string name = file == mainFile_ ? ref : moduleName(file) + ":" + ref;
    if (!defined_.insert(name).second) return name;
    if (n.kind == Name::Kind::Alias) {
      main_.aliases[name] = n.text;
      return name;
    }
    if (n.kind == Name::Kind::Expr) main_.aliases.emplace("triton", "triton");  // the paths it spells
    ast::GlobalAssign g;
    g.name = name;
    g.loc = loc;
    g.value = literal(n, loc);
    main_.globals.push_back(std::move(g));
    return name;
  }

  ast::Module& main_;
  std::string mainFile_;
  std::map<std::pair<std::string, std::string>, const Name*> entries_;  // by (file, name as written)
  std::map<std::string, const ModuleImports::Module*> modules_;         // by file
  std::map<std::string, std::unique_ptr<ast::Module>> parsed_;          // linked files, parsed on first use
  std::set<std::string> defined_;        // names added to main_
  std::set<std::string> reachedGlobals_;  // main_'s own globals queued
  std::set<const ast::FunctionDef*> visited_;
  std::vector<Work> work_;
};

}  // namespace

void linkImports(ast::Module& main, std::string_view kernel, const ModuleImports& imports) {
  Linker(main, imports).run(kernel);
}

Result<Kernel> compileLinked(const Source& source, const ModuleImports& imports, std::string_view kernel,
                             std::string_view signature, const CompileOptions& options) {
  return compile(source, kernel, signature, options, [&](ast::Module& m) { linkImports(m, kernel, imports); });
}

}  // namespace kiln
