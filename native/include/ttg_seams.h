/* The C seams of ttg_native for code compiled apart from it (benchmark baselines, a program's own
 * native work). ttg_native's `seams()` returns a JS External holding a `TtgSeams`; `commJob(job,
 * comm)` runs a `TtgCommJob` (handed in as an External) on the comm thread. Plain C so that any
 * compiler and any addon can use it; ttg_native checks `magic` and `version` before using one, and so
 * does an addon given a TtgSeams.
 */
#ifndef TTG_SEAMS_H
#define TTG_SEAMS_H

#ifdef __cplusplus
extern "C" {
#endif

#define TTG_SEAMS_MAGIC 0x74746753u /* "ttgS": a TtgSeams */
#define TTG_COMM_JOB_MAGIC 0x7474674au /* "ttgJ": a TtgCommJob */
#define TTG_SEAMS_VERSION 1u

/* A native job run once on the comm thread, the only thread that may call MPI (MPI is initialized
 * MPI_THREAD_FUNNELED). `comm` points at the MPI_Comm of the world it was started for (an
 * MPI_Comm*, as void* so that this header needs no mpi.h). The job writes at most `max_out`
 * results into `out` and returns how many, or returns -1 after writing a NUL-terminated message of
 * at most `err_len` bytes into `err`. Nothing else of ttg runs on the comm thread meanwhile, so a
 * job may block; every rank taking part must start it. `ctx` is owned by whoever made the job and
 * must outlive it. */
typedef struct TtgCommJob {
  unsigned magic; /* TTG_COMM_JOB_MAGIC */
  unsigned version; /* TTG_SEAMS_VERSION */
  int (*run)(void* ctx, const void* comm, double* out, int max_out, char* err, int err_len);
  void* ctx;
} TtgCommJob;

/* Entry points into a loaded ttg_native. */
typedef struct TtgSeams {
  unsigned magic; /* TTG_SEAMS_MAGIC */
  unsigned version; /* TTG_SEAMS_VERSION */
  /* Brackets native computation on any thread: while one runs, the comm thread polls gently
   * instead of spinning, so it does not take a core from the computation. Calls nest. */
  void (*compute_enter)(void);
  void (*compute_leave)(void);
} TtgSeams;

#ifdef __cplusplus
}
#endif

#endif
