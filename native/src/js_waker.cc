#include "js_waker.h"

#include <fcntl.h>
#include <unistd.h>
#include <uv.h>

#include <cerrno>
#include <cstdint>
#include <string>
#if defined(__linux__)
#include <sys/eventfd.h>
#endif

namespace ttg {

struct JsWaker::State {
  uv_poll_t poll;
  int read_fd = -1;
  int write_fd = -1;
  napi_env env = nullptr;
  Napi::FunctionReference fn;
  napi_async_context ctx = nullptr;
  Drain drain;
};

namespace {

void close_fds(int a, int b) {
  if (a >= 0) ::close(a);
  if (b >= 0 && b != a) ::close(b);
}

}  // namespace

void JsWaker::start(Napi::Env env, Napi::Function fn, Drain drain, const char* name) {
  if (is_open()) throw Napi::Error::New(env, std::string("ttg_native: ") + name + " waker already started");
  auto* s = new State();
#if defined(__linux__)
  s->read_fd = s->write_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (s->read_fd < 0) {
#else
  int p[2];
  if (pipe(p) == 0) {
    s->read_fd = p[0];
    s->write_fd = p[1];
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[1], F_SETFL, O_NONBLOCK);
  } else {
#endif
    delete s;
    throw Napi::Error::New(env, std::string("ttg_native: ") + name + ": cannot create a wake-up fd (errno " + std::to_string(errno) + ")");
  }
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, reinterpret_cast<struct uv_loop_s**>(&loop)) != napi_ok ||
      uv_poll_init(loop, &s->poll, s->read_fd) != 0) {
    close_fds(s->read_fd, s->write_fd);
    delete s;
    throw Napi::Error::New(env, std::string("ttg_native: ") + name + ": cannot watch the wake-up fd on the event loop");
  }
  s->env = env;
  s->fn = Napi::Persistent(fn);
  s->drain = std::move(drain);
  napi_async_init(env, nullptr, Napi::String::New(env, name), &s->ctx);
  s->poll.data = s;
  uv_poll_start(&s->poll, UV_READABLE, [](uv_poll_t* h, int, int) {
    auto* st = static_cast<State*>(h->data);
    // Emptied before draining: a wake() that lands during the drain fires the loop again.
    // One read resets an eventfd's counter; a pipe is read until empty (a syscall saved per wake).
    std::uint64_t count;
    if (st->read_fd == st->write_fd) {
      [[maybe_unused]] ssize_t n = ::read(st->read_fd, &count, sizeof count);
    } else {
      while (::read(st->read_fd, &count, sizeof count) > 0) {
      }
    }
    Napi::Env e(st->env);
    Napi::HandleScope scope(e);
    Napi::CallbackScope callback_scope(e, st->ctx);
    try {
      st->drain(e, st->fn.Value());
    } catch (const Napi::Error& err) {
      napi_fatal_exception(st->env, err.Value());
    }
  });
  uv_unref(reinterpret_cast<uv_handle_t*>(&s->poll));
  state_.store(s);
}

void JsWaker::wake() {
  State* s = state_.load(std::memory_order_acquire);
  if (s == nullptr) return;
  const std::uint64_t one = 1;
  // A full pipe or eventfd already has a wake-up pending, so a short write loses nothing.
  [[maybe_unused]] ssize_t n = ::write(s->write_fd, &one, s->read_fd == s->write_fd ? sizeof one : 1);
}

void JsWaker::ref(bool keep_alive) {
  State* s = state_.load();
  if (s == nullptr) return;
  auto* h = reinterpret_cast<uv_handle_t*>(&s->poll);
  if (keep_alive) uv_ref(h);
  else uv_unref(h);
}

void JsWaker::close(bool env_alive) {
  State* s = state_.exchange(nullptr);
  if (s == nullptr) return;
  if (env_alive) {
    s->fn.Reset();
    napi_async_destroy(s->env, s->ctx);
  } else {
    s->fn.SuppressDestruct();
  }
  uv_poll_stop(&s->poll);
  uv_close(reinterpret_cast<uv_handle_t*>(&s->poll), [](uv_handle_t* h) {
    auto* st = static_cast<State*>(h->data);
    close_fds(st->read_fd, st->write_fd);
    delete st;
  });
}

}  // namespace ttg
