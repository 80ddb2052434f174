/**
 * The two forms of a device task's body (`--body`): a generator that yields its device steps, or
 * an async function that awaits them. The examples describe each kernel task once, as the work it
 * does on a device and what it does after, and build either form from that.
 */
import * as ttg from 'ttg';

/** How a device task's body is written. */
export type BodyForm = 'generator' | 'async';

/** One kernel task's device part. */
export interface DeviceWork {
  /** Buffers the kernels use (made valid on the device and pinned). */
  inputs: ttg.Buffer<ttg.BufferArray>[];
  /** Enqueues the kernels on the task's stream. */
  enqueue(stream: ttg.device.Stream): void;
  /** Buffers copied back to the host by the wait. */
  back: ttg.Buffer<ttg.BufferArray>[];
  /** What the task does once the kernels have run (sends). */
  after(): void;
}

/**
 * A body of `form` that does on the device what `work(...args)` describes (input, enqueue, wait),
 * then its `after()`. Written out, the async form is
 * `const { stream } = await ttg.device.input(...); enqueue(stream); await ttg.device.kernel(...)`.
 */
export function deviceBody<A extends unknown[]>(form: BodyForm, work: (...args: A) => DeviceWork) {
  if (form === 'async') {
    return async (...args: A): Promise<void> => {
      const w = work(...args);
      const { stream } = await ttg.device.input(w.inputs);
      w.enqueue(stream);
      await ttg.device.kernel(w.back);
      w.after();
    };
  }
  return function* (...args: A): Generator<unknown, void, unknown> {
    const w = work(...args);
    const { stream } = (yield ttg.device.input(w.inputs)) as ttg.device.InputResult;
    w.enqueue(stream);
    yield ttg.device.kernel(w.back);
    w.after();
  };
}
