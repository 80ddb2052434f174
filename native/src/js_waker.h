// Wakes the JS thread from native threads (comm thread, kernel workers, CUDA callbacks) through an
// eventfd that the event loop watches, and runs a drain function there.
//
// Why not a Node thread-safe function: it holds its mutex across libuv's uv_async_send, and the
// loop side of an async handle spins until the sender has returned from it. On a busy core the
// woken JS thread preempts the sender inside that window, then waits for it (perf sched: two
// extra context switches per wake; perf record: 9% of the JS thread's samples in bench:device
// blocked on that mutex). Here the sender's write() is its last step and it holds no lock.
#pragma once

#include <napi.h>

#include <atomic>
#include <functional>

namespace ttg {

class JsWaker {
 public:
  // Runs on the JS thread inside a callback scope (microtasks run after it), with `fn`.
  using Drain = std::function<void(Napi::Env, Napi::Function)>;

  // JS thread. The loop is not kept alive until ref(true). Throws a Napi::Error on failure.
  void start(Napi::Env env, Napi::Function fn, Drain drain, const char* name);
  // Any thread, lock-free. Each call wakes the loop once at most; callers coalesce (a pending
  // flag set before and cleared by the drain), so this runs once per batch.
  void wake();
  // JS thread: whether a wake may still come that the program must wait for.
  void ref(bool keep_alive);
  // JS thread, once no thread can call wake() any more. `env_alive` false: from an env cleanup
  // hook, where references are abandoned rather than deleted.
  void close(bool env_alive);
  bool is_open() const { return state_.load() != nullptr; }

 private:
  struct State;
  std::atomic<State*> state_{nullptr};
};

}  // namespace ttg
