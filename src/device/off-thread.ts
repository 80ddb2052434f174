/**
 * From this size on, work on a host array leaves the JS thread, which on a GPU is the critical
 * path (it enqueues every tile's work): a copy hashes the bytes it moves where it runs, other hashes
 * run on a worker, and a copy to a CUDA device is staged into pinned memory by the stager thread.
 * Below it the JS thread does the work itself: the hand-off would cost it more.
 */
export const OFF_THREAD_BYTES = 1 << 20;
