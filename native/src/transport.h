// What the comm thread drives: MPI when launched by mpirun, else a single-rank loopback.
// Every method runs on the comm thread only.
#pragma once

#include <memory>

#include "messages.h"

namespace ttg {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual bool uses_mpi() const = 0;
  // False when nothing can arrive unless JS enqueues work, so the comm thread may sleep.
  virtual bool needs_polling() const = 0;
  // True while point-to-point transfers are in flight: MPI (without an async progress thread)
  // only moves their data when polled, so the comm thread keeps polling for longer.
  virtual bool busy() const = 0;
  // True when another thread may call send() and progress() while it holds the comm thread's MPI
  // lock (MPI_THREAD_SERIALIZED), never concurrently with the comm thread.
  virtual bool any_thread() const { return false; }

  virtual void send(SendCmd&& cmd, Batch& out) = 0;
  virtual void recv(RecvCmd&& cmd, Batch& out) = 0;
  virtual void collective(CollCmd&& cmd, Batch& out) = 0;
  // Returns true when anything arrived or completed.
  virtual bool progress(Batch& out) = 0;
  [[noreturn]] virtual void abort(int code) = 0;
  // Completes what it can, cancels the rest, then finalizes (MPI_Finalize) exactly once.
  virtual void shutdown(Batch& out) = 0;
};

std::unique_ptr<Transport> make_loopback_transport(Stats& stats);
#if TTG_HAVE_MPI
// Calls MPI_Init_thread; must run on the thread that will own MPI.
std::unique_ptr<Transport> make_mpi_transport(Stats& stats);
#endif

}  // namespace ttg
