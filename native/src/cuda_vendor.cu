// cuBLAS / cuSOLVER through dlopen. The prototypes below are the libraries' documented C ABI
// (cublas_api.h, cusolverDn.h: the _v2 entry points, enums as int), declared here so that the
// addon builds with nvcc alone; a machine whose toolkit or Python wheels carry the libraries gets
// them at run time.
#include "cuda_vendor.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

namespace ttg {
namespace {

using Handle = void*;
using Status = int;  // cublasStatus_t, cusolverStatus_t: 0 is success

struct Blas {
  Status (*create)(Handle*);
  Status (*destroy)(Handle);
  Status (*set_stream)(Handle, cudaStream_t);
  Status (*set_workspace)(Handle, void*, size_t);  // absent before cuBLAS 11.x: then cuBLAS allocates its own
  Status (*get_property)(int, int*);
  Status (*dgemm)(Handle, int, int, int, int, int, const double*, const double*, int, const double*, int,
                  const double*, double*, int);
  Status (*dsyrk)(Handle, int, int, int, int, const double*, const double*, int, const double*, double*, int);
  Status (*dtrsm)(Handle, int, int, int, int, int, int, const double*, const double*, int, double*, int);
  Status (*daxpy)(Handle, int, const double*, const double*, int, double*, int);
  Status (*dscal)(Handle, int, const double*, double*, int);
};

struct Solver {
  Status (*create)(Handle*);
  Status (*destroy)(Handle);
  Status (*set_stream)(Handle, cudaStream_t);
  Status (*get_property)(int, int*);
  Status (*potrf_size)(Handle, int, int, double*, int, int*);
  Status (*potrf)(Handle, int, int, double*, int, double*, int, int*);
};

// cuBLAS asks for 32 MiB of workspace per handle on Hopper (cuBLAS docs, cublasSetWorkspace);
// smaller on older GPUs, so this suffices everywhere.
constexpr size_t kBlasWorkspace = 32u << 20;

struct Loaded {
  bool blas = false, solver = false;
  Blas b{};
  Solver s{};
  std::string description;
};
Loaded g_lib;

std::vector<std::string> split_dirs(const char* dirs) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = dirs; p != nullptr && *p != '\0'; ++p) {
    if (*p == ':') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += *p;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string path_of(void* lib) {
  link_map* lm = nullptr;
  return dlinfo(lib, RTLD_DI_LINKMAP, &lm) == 0 && lm != nullptr && lm->l_name != nullptr ? lm->l_name : "?";
}

// The first of `sonames` found in `dirs`, then by the loader's own search. RTLD_GLOBAL so that a
// library loaded later (cuSOLVER needing cuBLAS, cuSPARSE, nvJitLink) finds these before
// searching its own RUNPATH, which a Python wheel's layout breaks. `why`: a file that exists but
// did not load (a missing dependency, a wrong architecture) says why; else that none was found.
void* open_first(const std::vector<std::string>& dirs, std::initializer_list<const char*> sonames, std::string* why) {
  std::string failed;
  for (const char* so : sonames) {
    for (const std::string& d : dirs) {
      const std::string path = d + "/" + so;
      if (access(path.c_str(), F_OK) != 0) continue;
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
      if (failed.empty()) failed = dlerror();
    }
    if (void* h = dlopen(so, RTLD_NOW | RTLD_GLOBAL)) return h;
  }
  if (why != nullptr) {
    std::string names;
    for (const char* so : sonames) names += (names.empty() ? "" : ", ") + std::string(so);
    *why = !failed.empty() ? failed
                           : names + " not found in " + std::to_string(dirs.size()) + " director" + (dirs.size() == 1 ? "y" : "ies") +
                                 " or the loader's path";
  }
  return nullptr;
}

template <typename F>
bool sym(void* lib, const char* name, F& f, std::string* missing) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (f == nullptr && missing != nullptr) *missing = name;
  return f != nullptr;
}

std::string version_of(Status (*get_property)(int, int*)) {
  int v[3] = {0, 0, 0};  // libraryPropertyType: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  for (int i = 0; i < 3; ++i) get_property(i, &v[i]);
  return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
}

bool load_blas(const std::vector<std::string>& dirs, std::string* why) {
  // cuBLAS 13 ships with CUDA 13 (this toolkit's), 12 with CUDA 12; both take our streams.
  open_first(dirs, {"libcublasLt.so.13", "libcublasLt.so.12"}, nullptr);
  void* lib = open_first(dirs, {"libcublas.so.13", "libcublas.so.12"}, why);
  if (lib == nullptr) return false;
  Blas& b = g_lib.b;
  std::string missing;
  const bool ok = sym(lib, "cublasCreate_v2", b.create, &missing) && sym(lib, "cublasDestroy_v2", b.destroy, &missing) &&
                  sym(lib, "cublasSetStream_v2", b.set_stream, &missing) && sym(lib, "cublasGetProperty", b.get_property, &missing) &&
                  sym(lib, "cublasDgemm_v2", b.dgemm, &missing) && sym(lib, "cublasDsyrk_v2", b.dsyrk, &missing) &&
                  sym(lib, "cublasDtrsm_v2", b.dtrsm, &missing) && sym(lib, "cublasDaxpy_v2", b.daxpy, &missing) &&
                  sym(lib, "cublasDscal_v2", b.dscal, &missing);
  if (!ok) {
    *why = path_of(lib) + " has no " + missing;
    return false;
  }
  sym(lib, "cublasSetWorkspace_v2", b.set_workspace, nullptr);
  g_lib.description = "cuBLAS " + version_of(b.get_property) + " (" + path_of(lib) + ")";
  return true;
}

bool load_solver(const std::vector<std::string>& dirs, std::string* why) {
  open_first(dirs, {"libnvJitLink.so.13", "libnvJitLink.so.12"}, nullptr);
  open_first(dirs, {"libcusparse.so.12"}, nullptr);
  void* lib = open_first(dirs, {"libcusolver.so.12", "libcusolver.so.11"}, why);
  if (lib == nullptr) return false;
  Solver& s = g_lib.s;
  std::string missing;
  const bool ok = sym(lib, "cusolverDnCreate", s.create, &missing) && sym(lib, "cusolverDnDestroy", s.destroy, &missing) &&
                  sym(lib, "cusolverDnSetStream", s.set_stream, &missing) && sym(lib, "cusolverGetProperty", s.get_property, &missing) &&
                  sym(lib, "cusolverDnDpotrf_bufferSize", s.potrf_size, &missing) && sym(lib, "cusolverDnDpotrf", s.potrf, &missing);
  if (!ok) {
    *why = path_of(lib) + " has no " + missing;
    return false;
  }
  g_lib.description += " + cuSOLVER " + version_of(s.get_property) + " (" + path_of(lib) + ")";
  return true;
}

int op_of(char c) { return c == 'T' || c == 't' || c == 'C' || c == 'c' ? 1 : 0; }  // CUBLAS_OP_T : CUBLAS_OP_N
int fill_of(char c) { return c == 'U' || c == 'u' ? 1 : 0; }                         // CUBLAS_FILL_MODE_UPPER : LOWER

}  // namespace

struct VendorStream {
  Handle blas = nullptr;
  Handle solver = nullptr;
  void* blas_work = nullptr;
  double* work = nullptr;  // cuSOLVER's workspace, grown in stream order
  int work_len = 0;
  int* info = nullptr;  // where a dpotrf without an info buffer writes its info
};

const std::string& vendor_load(const char* dirs) {
  static std::once_flag once;
  std::call_once(once, [dirs] {
    if (dirs != nullptr && std::strcmp(dirs, "off") == 0) {
      g_lib.description = "our CUDA tile kernels (cuBLAS/cuSOLVER off: TTG_CUDA_LIBS=off)";
      return;
    }
    const std::vector<std::string> list = split_dirs(dirs);
    std::string why;
    g_lib.blas = load_blas(list, &why);
    if (!g_lib.blas) {
      g_lib.description = "our CUDA tile kernels (no cuBLAS: " + why + "; TTG_CUDA_LIBS names its directory)";
      return;
    }
    g_lib.solver = load_solver(list, &why);
    if (!g_lib.solver) g_lib.description += "; dpotrf: our tile kernel (no cuSOLVER: " + why + ")";
  });
  return g_lib.description;
}

const std::string& vendor_description() { return g_lib.description; }

VendorStream* vendor_open(cudaStream_t s, std::string* why) {
  if (!g_lib.blas) return nullptr;
  auto* v = new VendorStream();
  auto fail = [&](const std::string& what) {
    if (why != nullptr) *why = what;
    vendor_close(v);
    return nullptr;
  };
  if (g_lib.b.create(&v->blas) != 0) return fail("cublasCreate failed");
  if (g_lib.b.set_stream(v->blas, s) != 0) return fail("cublasSetStream failed");
  if (g_lib.b.set_workspace != nullptr) {
    if (cudaMalloc(&v->blas_work, kBlasWorkspace) != cudaSuccess) {
      cudaGetLastError();
      return fail("no device memory for cuBLAS's workspace");
    }
    if (g_lib.b.set_workspace(v->blas, v->blas_work, kBlasWorkspace) != 0) return fail("cublasSetWorkspace failed");
  }
  if (cudaMalloc(&v->info, sizeof(int)) != cudaSuccess) {
    cudaGetLastError();
    return fail("no device memory for dpotrf's info");
  }
  if (g_lib.solver) {
    if (g_lib.s.create(&v->solver) != 0) return fail("cusolverDnCreate failed");
    if (g_lib.s.set_stream(v->solver, s) != 0) return fail("cusolverDnSetStream failed");
  }
  return v;
}

void vendor_close(VendorStream* v) {
  if (v == nullptr) return;
  if (v->solver != nullptr) g_lib.s.destroy(v->solver);
  if (v->blas != nullptr) g_lib.b.destroy(v->blas);
  if (v->work != nullptr) cudaFree(v->work);
  if (v->blas_work != nullptr) cudaFree(v->blas_work);
  if (v->info != nullptr) cudaFree(v->info);
  delete v;
}

int vendor_launch(VendorStream* v, const TtgOp& o, cudaStream_t s, char* err, std::size_t errlen) {
  if (v == nullptr) return 0;
  double* A = static_cast<double*>(o.p[0]);
  double* B = static_cast<double*>(o.p[1]);
  double* C = static_cast<double*>(o.p[2]);
  const Blas& b = g_lib.b;
  const char* what = "";
  Status st = 0;
  switch (o.kind) {
    case TTG_OP_DGEMM:
      what = "cublasDgemm";
      st = b.dgemm(v->blas, op_of(o.f[0]), op_of(o.f[1]), o.m, o.n, o.k, &o.alpha, A, o.lda, B, o.ldb, &o.beta, C, o.ldc);
      break;
    case TTG_OP_DSYRK:
      what = "cublasDsyrk";
      st = b.dsyrk(v->blas, fill_of(o.f[0]), op_of(o.f[1]), o.n, o.k, &o.alpha, A, o.lda, &o.beta, C, o.ldc);
      break;
    case TTG_OP_DTRSM: {
      what = "cublasDtrsm";
      const int side = o.f[0] == 'R' || o.f[0] == 'r' ? 1 : 0;  // CUBLAS_SIDE_RIGHT : LEFT
      const int diag = o.f[3] == 'U' || o.f[3] == 'u' ? 1 : 0;  // CUBLAS_DIAG_UNIT : NON_UNIT
      st = b.dtrsm(v->blas, side, fill_of(o.f[1]), op_of(o.f[2]), diag, o.m, o.n, &o.alpha, A, o.lda, B, o.ldb);
      break;
    }
    case TTG_OP_DAXPY:
      what = "cublasDaxpy";
      st = b.daxpy(v->blas, o.n, &o.alpha, A, 1, B, 1);
      break;
    case TTG_OP_DSCAL:
      what = "cublasDscal";
      st = b.dscal(v->blas, o.n, &o.alpha, A, 1);
      break;
    case TTG_OP_DPOTRF: {
      if (v->solver == nullptr) return 0;
      int* info = o.p[3] != nullptr ? static_cast<int*>(o.p[3]) : v->info;
      if (o.n == 0) {
        // LAPACK's quick return; cuSOLVER's size query is not documented for n = 0
        const cudaError_t e = cudaMemsetAsync(info, 0, sizeof(int), s);
        if (e != cudaSuccess) std::snprintf(err, errlen, "cudaMemsetAsync(info): %s", cudaGetErrorString(e));
        return e == cudaSuccess ? 1 : -1;
      }
      const int uplo = fill_of(o.f[0]);
      int len = 0;
      what = "cusolverDnDpotrf_bufferSize";
      st = g_lib.s.potrf_size(v->solver, uplo, o.n, A, o.lda, &len);
      if (st == 0 && len > v->work_len) {
        // Stream-ordered: the old workspace is freed after the potrf before this one has run.
        if (v->work != nullptr) cudaFreeAsync(v->work, s);
        v->work = nullptr;
        v->work_len = 0;
        const cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&v->work), sizeof(double) * static_cast<size_t>(len), s);
        if (e != cudaSuccess) {
          cudaGetLastError();
          std::snprintf(err, errlen, "cudaMallocAsync(%d doubles) for cuSOLVER's workspace: %s", len, cudaGetErrorString(e));
          return -1;
        }
        v->work_len = len;
      }
      if (st == 0) {
        what = "cusolverDnDpotrf";
        st = g_lib.s.potrf(v->solver, uplo, o.n, A, o.lda, v->work, v->work_len, info);
      }
      break;
    }
    default:
      return 0;
  }
  if (st != 0) {
    std::snprintf(err, errlen, "%s failed: status %d (m %d n %d k %d lda %d ldb %d ldc %d flags %.4s)", what, st, o.m, o.n,
                  o.k, o.lda, o.ldb, o.ldc, o.f);
    return -1;
  }
  return 1;
}

}  // namespace ttg
