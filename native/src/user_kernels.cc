#include "user_kernels.h"

#include <dlfcn.h>

#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace ttg {

TtgKernelFn load_user_kernel(const std::string& path, const std::string& symbol) {
  // Libraries stay loaded for the life of the process: ops may still name their functions.
  static std::mutex mu;
  static std::unordered_map<std::string, void*>* libs = new std::unordered_map<std::string, void*>();
  std::lock_guard<std::mutex> lk(mu);
  void*& lib = (*libs)[path];
  if (lib == nullptr) {
    lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      libs->erase(path);
      const char* e = dlerror();
      throw std::runtime_error(std::string("cannot load ") + path + ": " + (e != nullptr ? e : "unknown error"));
    }
  }
  dlerror();
  void* f = dlsym(lib, symbol.c_str());
  const char* e = dlerror();
  if (f == nullptr || e != nullptr) throw std::runtime_error(path + " has no function '" + symbol + "'");
  return reinterpret_cast<TtgKernelFn>(f);
}

}  // namespace ttg

extern "C" int ttg_run_user_op(const TtgOp* op, void* stream) {
  auto* u = static_cast<ttg::UserCall*>(op->p[0]);
  int error = 0;
  const TtgKernelCall call{u->buffers.data(), u->lengths.data(), static_cast<int>(u->buffers.size()),
                           u->scalars.data(), static_cast<int>(u->scalars.size()), stream, &error};
  u->fn(&call);
  return error;
}

extern "C" void ttg_free_user_op(const TtgOp* op) { delete static_cast<ttg::UserCall*>(op->p[0]); }
