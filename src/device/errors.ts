/**
 * Errors of the device layer, built in one place like the core's `Errors` so codes and wording
 * stay consistent. Every message names the TT, key and rank when a task is involved.
 */
import { Errors, TtgError, type TtgErrorContext } from '../base/errors.js';

/** Named factories for device-layer errors. */
export const DeviceErrors = {
  /** One task's pinned buffers cannot fit on the device at all: waiting would never help. */
  pinnedSetTooLarge(device: number, need: number, capacity: number, ctx: TtgErrorContext): TtgError {
    return new TtgError('E_DEVICE_MEMORY',
      `the buffers one task pins on device ${device} need ${need} bytes, more than the device's ${capacity} bytes; ` +
      'split the data into smaller buffers or give the device more memory', ctx);
  },
  /** The device allocator failed although our accounting said the memory was free. */
  allocFailed(device: number, bytes: number, ctx: TtgErrorContext): TtgError {
    return new TtgError('E_DEVICE_MEMORY', `allocating ${bytes} bytes on device ${device} failed although nothing is left to evict`, ctx);
  },
  /** A task given up by a hang report stopped waiting for device memory. */
  abandoned(ctx: TtgErrorContext): TtgError {
    return new TtgError('E_HANG', 'the task was given up by a hang report while it waited for device memory', ctx);
  },
  /** A device op failed where it ran (CUDA refused it, or its stream faulted). */
  opFailed(why: string): TtgError {
    return new TtgError('E_DEVICE', `a device operation failed: ${why}`);
  },
  /** A program's kernel `name` set its error where it ran (`failed` says what the addon reported). */
  kernelFailed(name: string, failed: TtgError): TtgError {
    return new TtgError('E_DEVICE', `kernels.call('${name}') failed: ${failed.detail}`, { cause: failed });
  },
  /** The addon refused to enqueue an op (`TTG_FAULT_DEVOP`, or no such stream): nothing of it ran. */
  enqueueFailed(cause: unknown): TtgError {
    if (cause instanceof TtgError) return cause;
    const why = cause instanceof Error ? cause.message : String(cause);
    return new TtgError('E_DEVICE', `a device operation could not be enqueued: ${why}`, { cause });
  },
  /** A bad argument to a device API call. */
  invalid(what: string, detail: string, ctx: TtgErrorContext = {}): TtgError {
    return Errors.invalidArgument(what, detail, ctx);
  },
  /** A host task wrote a buffer it received through a read-only input that has device copies. */
  readOnlyWritten(terminal: number, ctx: TtgErrorContext): TtgError {
    return new TtgError('E_READ_ONLY',
      'the body wrote a ttg.Buffer it received through this read-only input, whose device copies would then be stale; ' +
      `list the input in { consume: [${terminal}] } to write it (its device copies are then dropped)`, { ...ctx, terminal });
  },
  /** A device task sent a buffer that its kernels may still be writing. */
  sentBeforeWait(ctx: TtgErrorContext): TtgError {
    return Errors.invalidArgument('send', 'carries a ttg.Buffer that kernels of this task write and no `yield ttg.device.kernel()` has waited for: ' +
      'the receiver could read it mid-write; wait before sending it', ctx);
  },
  /** A kernel would write a buffer that queued kernels of a task that sent it on still read. */
  writesQueuedRead(what: string): TtgError {
    return Errors.invalidArgument(what, 'is still read by queued kernels of a task that sent it on (before its wait), and this task holds it without ' +
      'consuming the value that carries it: list that input in { consume: [...] } to write it (the task then gets a private copy)');
  },
  /** The device layer is not usable (no addon, or not initialized). */
  unavailable(why: string): TtgError {
    return Errors.invalidArgument('the device layer', `is unavailable: ${why}`);
  },
} as const;
