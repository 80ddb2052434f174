// What this binary was compiled with, as reported by info() to JS.
#pragma once

#include <string>

namespace ttg {

struct BuildInfo {
  bool mpi;
  bool blas;
  bool cuda;
  std::string version;  // addon version (the npm package version)
  std::string details;  // human-readable library versions
};

BuildInfo build_info();

}  // namespace ttg
