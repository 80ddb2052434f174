#!/usr/bin/env bash
# The GPU check on a bare CUDA node: `bash .gpu-bundle/run.sh` (made by scripts/gpu-check.sh
# --bundle, which copies this file there). Needs bash, tar, xz or python3, CMake, a C++
# compiler and nvcc (PATH, or /usr/local/cuda/bin); brings its own Node.
#
# Without a GPU (nvidia-smi lists none) it prints one JSON line saying so and exits 0, before
# unpacking anything. Otherwise it unpacks into a temporary directory (TTG_GPU_CHECK_DIR to
# choose), points TTG_CUDA_LIBS at the nvidia-* Python wheels' libraries it finds, and runs the
# steps of test/gpu/check.ts, whose last output line is the JSON summary. $OUT, when set, receives
# summary.json, build.log and steps.log.
#
#   --build      build the addon even without a GPU (then the addon says there is none)
#   --selftest   unpack, check that the bundled Node and the JS dependencies load, and stop
set -uo pipefail

T0=$(date +%s)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=${1:-}
say() { printf '[+%5s s] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  why="nvidia-smi lists no GPU"
else
  why="no nvidia-smi"
fi
if [ "${gpus:-0}" = 0 ] && [ -z "$mode" ]; then
  printf '{"ok":true,"gpu":null,"skipped":"no GPU on this machine (%s): nothing checked"}\n' "$why"
  exit 0
fi

work=${TTG_GPU_CHECK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ttg-gpu.XXXXXX")}
mkdir -p "$work"
app=$work/ttg-gpu
say "unpacking into $app"
if command -v xz >/dev/null 2>&1; then
  tar -xJf "$here/ttg-gpu.tar.xz" -C "$work" && mkdir -p "$app/.node/bin" && xz -dc "$here/node.xz" > "$app/.node/bin/node"
else
  python3 - "$here" "$work" <<'EOF'
import lzma, os, shutil, sys, tarfile
here, work = sys.argv[1], sys.argv[2]
tarfile.open(os.path.join(here, 'ttg-gpu.tar.xz')).extractall(work)
os.makedirs(os.path.join(work, 'ttg-gpu', '.node', 'bin'), exist_ok=True)
with lzma.open(os.path.join(here, 'node.xz')) as src, open(os.path.join(work, 'ttg-gpu', '.node', 'bin', 'node'), 'wb') as dst:
    shutil.copyfileobj(src, dst)
EOF
fi
[ -s "$app/.node/bin/node" ] || { echo '{"ok":false,"error":"could not unpack the bundle (needs xz or python3)"}'; exit 1; }
chmod +x "$app/.node/bin/node"

export PATH="$app/.node/bin:$PATH:/usr/local/cuda/bin"
if [ "$(command -v node)" != "$app/.node/bin/node" ] || ! node -v >/dev/null 2>&1; then
  echo "{\"ok\":false,\"error\":\"the bundled node does not run here: $(node -v 2>&1 | head -1)\"}"
  exit 1
fi
say "node $(node -v) ($(command -v node)); bundle of $(cut -c1-12 "$app/COMMIT")"
cd "$app"

if [ "$mode" = --selftest ]; then
  node --input-type=module -e "
    await import('ttg'); await import('chai'); await import('mocha'); await import('msgpackr'); await import('xxhash-wasm');
    await import('cmake-js'); await import('node-addon-api'); await import('node-api-headers');
    console.log(JSON.stringify({ ok: true, node: process.version, selftest: 'ttg, mocha, chai and cmake-js load' }));"
  exit $?
fi

# cuBLAS/cuSOLVER of the Python environments here (PyTorch's and CuPy's nvidia-* wheels), first.
libs=""
for py in /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3 python3; do
  command -v "$py" >/dev/null 2>&1 || continue
  found=$("$py" -c "import glob, os, nvidia; print(':'.join(d for p in nvidia.__path__ for d in sorted(glob.glob(os.path.join(p, '*', 'lib')))))" 2>/dev/null) || continue
  [ -n "$found" ] && libs="$libs${libs:+:}$found"
done
export TTG_CUDA_LIBS="${TTG_CUDA_LIBS:-}${TTG_CUDA_LIBS:+:}$libs"
say "TTG_CUDA_LIBS=${TTG_CUDA_LIBS:-(none found; the defaults of src/base/cuda-libs.ts)}"
command -v nvcc >/dev/null 2>&1 || say "WARNING: nvcc is not on PATH nor in /usr/local/cuda/bin: the addon builds without CUDA"

export TTG_GPU_CHECK_T0=$T0 NO_COLOR=1
[ -n "${OUT:-}" ] && mkdir -p "$OUT"
exec node dist/test/gpu/check.js
