// cuBLAS and cuSOLVER, loaded at run time (dlopen) when they can be found, for the built-in
// kernels of the cuda backend; our own tile kernels (cuda_kernels.cu) run otherwise. The build
// never needs them: nothing here includes or links a vendor header or library. Included only by
// .cu files.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "device_op.h"

namespace ttg {

// Loads the libraries once per process, searching each directory of `dirs` (':'-separated, in
// order) and then the dynamic loader's own paths; `dirs` == "off" loads nothing. Returns one line
// saying which kernels run and where they came from.
const std::string& vendor_load(const char* dirs);
// That line once loaded; empty before.
const std::string& vendor_description();

// A stream's cuBLAS and cuSOLVER handles and their device scratch (workspace, info).
struct VendorStream;

// Handles bound to `s` (on the current device); nullptr when the libraries are not loaded or a
// handle could not be made (then `why`, if given, says so).
VendorStream* vendor_open(cudaStream_t s, std::string* why);
// Destroys the handles; the stream must be idle.
void vendor_close(VendorStream* v);

// Enqueues `op` on `s` with the vendor library: 1 when it did, 0 when it does not handle that op
// (run ours), -1 when the library refused it (`err` says why; nothing was enqueued).
int vendor_launch(VendorStream* v, const TtgOp& op, cudaStream_t s, char* err, std::size_t errlen);

}  // namespace ttg
