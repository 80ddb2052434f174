import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { fileURLToPath, pathToFileURL } from 'node:url';
import xxhash from 'xxhash-wasm';

import { arrivalEvents, lentBuffers, loadNative, nativeLoadError, requireNative, type NativeEvent } from '../../src/native/addon.js';
import { within } from '../helpers.js';

/** Runs `body` with the addon started alone (loopback), keeping the event loop open, and finalizes it after. */
async function withStarted(body: (addon: ReturnType<typeof requireNative>) => Promise<void>): Promise<void> {
  const addon = requireNative();
  addon.start(() => {});
  const keep = setInterval(() => {}, 1000); // the addon does not hold the event loop open
  try {
    await body(addon);
  } finally {
    clearInterval(keep);
    addon.finalize();
  }
}

describe('native addon (single process)', () => {
  it('loads', () => {
    const addon = loadNative();
    expect(addon, `addon failed to load: ${nativeLoadError()}`).to.not.equal(null);
  });

  it('info() reports what it was compiled with', () => {
    const info = requireNative().info();
    expect(info.mpi).to.be.a('boolean');
    expect(info.blas).to.be.a('boolean');
    expect(info.cuda).to.be.a('boolean');
    expect(info.version).to.be.a('string').and.not.equal('');
  });

  it('hash64() is XXH64 up to 1 MiB and XXH64 of 1 MiB chunks\' XXH64s beyond, read in place', async () => {
    const addon = requireNative();
    const ref = await xxhash();
    const MiB = 1 << 20;
    const bytes = new Uint8Array(8 * MiB + 13);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    for (let n = 0; n <= 70; n++) {
      for (const at of [0, 1, 3, 7]) {
        const v = bytes.subarray(at, at + n);
        expect(addon.hash64(v), `length ${n} at ${at}`).to.equal(ref.h64Raw(v));
      }
    }
    expect(addon.hash64(bytes.subarray(5, 5 + MiB))).to.equal(ref.h64Raw(bytes.subarray(5, 5 + MiB)));
    const chunked = (v: Uint8Array): bigint => {
      const parts = new BigUint64Array(Math.ceil(v.length / MiB));
      for (let i = 0; i < parts.length; i++) parts[i] = ref.h64Raw(v.subarray(i * MiB, (i + 1) * MiB));
      return ref.h64Raw(new Uint8Array(parts.buffer));
    };
    for (const n of [MiB + 1, 2 * MiB, 8 * MiB + 13]) expect(addon.hash64(bytes.subarray(0, n)), `length ${n}`).to.equal(chunked(bytes.subarray(0, n)));
    const doubles = new Float64Array(bytes.buffer, 8, 1000);
    expect(addon.hash64(doubles)).to.equal(ref.h64Raw(new Uint8Array(bytes.buffer, 8, 8000)));
    // one changed bit anywhere changes it, also in the last, short chunk
    for (const at of [5_000_001, 8 * MiB + 12]) {
      const before = addon.hash64(bytes);
      bytes[at]! ^= 4;
      expect(addon.hash64(bytes), `bit at ${at}`).to.not.equal(before);
    }
    expect(() => addon.hash64([1, 2] as unknown as ArrayBufferView)).to.throw(TypeError, /hash64 must be a TypedArray/);
  });

  it('hash64() of large arrays from several threads at once: each gets its own array\'s hash', async () => {
    const { Worker } = await import('node:worker_threads');
    const addonPath = fileURLToPath(new URL('../../src/native/addon.js', import.meta.url));
    const src = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(${JSON.stringify(pathToFileURL(addonPath).href)}).then(({ requireNative }) => {
        const addon = requireNative();
        const a = new Uint8Array(workerData.bytes);
        for (let i = 0; i < a.length; i += 4093) a[i] = (i * 31 + workerData.seed) & 255;
        const hashes = [];
        for (let r = 0; r < 40; r++) hashes.push(addon.hash64(a).toString());
        parentPort.postMessage(hashes);
      });`;
    const run = (seed: number) => new Promise<string[]>((resolve, reject) => {
      const w = new Worker(src, { eval: true, workerData: { bytes: 8 * 1024 * 1024 + 5, seed } });
      w.once('message', resolve);
      w.once('error', reject);
    });
    const expected = (seed: number): string => {
      const a = new Uint8Array(8 * 1024 * 1024 + 5);
      for (let i = 0; i < a.length; i += 4093) a[i] = (i * 31 + seed) & 255;
      return requireNative().hash64(a).toString();
    };
    const results = await Promise.all([1, 2, 3].map(run));
    results.forEach((hashes, k) => {
      expect(new Set(hashes), `worker ${k}`).to.deep.equal(new Set([expected(k + 1)]));
    });
  });

  it('hash64() of a large array when a helper thread cannot start: the same value, no crash (TTG_FAULT_CHUNK_THREAD)', () => {
    const index = pathToFileURL(fileURLToPath(new URL('../../src/index.js', import.meta.url))).href;
    const addonPath = pathToFileURL(fileURLToPath(new URL('../../src/native/addon.js', import.meta.url))).href;
    const src = `
      const ttg = await import(${JSON.stringify(index)});
      const { requireNative } = await import(${JSON.stringify(addonPath)});
      await ttg.initialize();
      const a = new Uint8Array(8 * 1024 * 1024 + 13);
      for (let i = 0; i < a.length; i += 4093) a[i] = (i * 7) & 255;
      console.log(requireNative().hash64(a).toString());
      await ttg.finalize();`;
    const run = (fault: string) => spawnSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, TTG_FAULT_CHUNK_THREAD: fault } });
    const ok = run('0');
    expect(ok.status, ok.stderr).to.equal(0);
    const failed = run('1');
    expect(failed.status, failed.stderr).to.equal(0);
    expect(failed.stdout.trim()).to.equal(ok.stdout.trim()).and.match(/^\d+$/);
  });

  it('lentBuffers() reads both forms of a batch\'s lent buffers', () => {
    const a = new ArrayBuffer(8);
    const b = new ArrayBuffer(16);
    // a batch of one message lent one buffer: extra is that buffer
    expect(lentBuffers(a, 0)).to.deep.equal([a]).and.satisfy((x: ArrayBuffer[]) => x[0] === a);
    // otherwise an array of them per event (an error's text for an error)
    const extra: unknown[] = ['an error text', [a, b]];
    const two = lentBuffers(extra, 1);
    expect(two).to.have.length(2);
    expect(two[0]).to.equal(a);
    expect(two[1]).to.equal(b);
  });

  it('start() without mpirun is rank 0 of 1; messages loop back; finalize is idempotent', async () => {
    const addon = requireNative();
    const events: NativeEvent[] = [];
    let wake: () => void = () => {};
    const world = addon.start((meta, bytes, extra, length) => {
      events.push(...arrivalEvents(meta, bytes, extra, length));
      wake();
    });
    try {
      expect(world).to.include({ rank: 0, size: 1, mpi: false });
      const payload = Float64Array.from({ length: 1000 }, (_, i) => i * 0.5);
      addon.send(0, new Uint8Array([1, 2, 3]), [payload]);
      while (!events.some((e) => e.kind === 'msg')) await new Promise<void>((r) => (wake = r));
      const msg = events.find((e) => e.kind === 'msg');
      if (msg?.kind !== 'msg') throw new Error('no msg event');
      expect([...msg.header]).to.deep.equal([1, 2, 3]);
      expect([...msg.sizes]).to.deep.equal([8000]);
      const into = new Float64Array(1000);
      expect(() => addon.recv(msg.id, [new Float64Array(3)])).to.throw(RangeError, /bytes/);
      addon.recv(msg.id, [into]);
      while (!events.some((e) => e.kind === 'recvd')) await new Promise<void>((r) => (wake = r));
      expect(into).to.deep.equal(payload);
      const sum = await addon.allreduce(new Float64Array([2, 3]));
      expect([...sum]).to.deep.equal([2, 3]);
      await addon.barrier();
      expect(addon.stats()).to.include({ sent_msgs: 1, recv_msgs: 1 });
      // copy: the addon copies the parts before send returns; they arrive with the header
      const small = Float64Array.of(4.25, -1);
      addon.send(0, new Uint8Array([9]), [small], false, false, true);
      small[0] = 0;
      while (!events.some((e) => e.kind === 'msg' && e.header[0] === 9)) await new Promise<void>((r) => (wake = r));
      const copied = events.find((e) => e.kind === 'msg' && e.header[0] === 9);
      if (copied?.kind !== 'msg' || copied.eager === undefined) throw new Error('no eager msg event');
      expect([...new Float64Array(copied.eager.slice().buffer)]).to.deep.equal([4.25, -1]);
      expect(() => addon.send(0, new Uint8Array([1]), [new Uint8Array(2 ** 20 + 1)], false, false, true)).to.throw(RangeError, /at most 1 MiB/);
      expect(() => addon.send(1, new Uint8Array(0), [])).to.throw(RangeError, /not a rank/);
    } finally {
      addon.finalize();
      addon.finalize();
    }
  });

  it('reuses one pair of batch arrays from batch to batch; arrivalEvents keeps copies', async () => {
    const addon = requireNative();
    const seen: { meta: Float64Array; bytes: Uint8Array; length: number }[] = [];
    const events: NativeEvent[] = [];
    let wake: () => void = () => {};
    addon.start((meta, bytes, extra, length) => {
      seen.push({ meta, bytes, length });
      events.push(...arrivalEvents(meta, bytes, extra, length));
      wake();
    });
    try {
      for (const tag of [1, 2, 3]) {
        addon.send(0, new Uint8Array([tag, tag, tag]), []);
        while (!events.some((e) => e.kind === 'msg' && e.header[0] === tag)) await new Promise<void>((r) => (wake = r));
      }
      expect(seen).to.have.length(3);
      expect(seen[1]!.bytes).to.equal(seen[0]!.bytes);
      expect(seen[2]!.meta).to.equal(seen[0]!.meta);
      expect(seen[0]!.length).to.be.greaterThan(0).and.at.most(seen[0]!.meta.length);
      expect(seen[0]!.bytes[0]).to.equal(3); // the shared array holds the last batch now
      expect(events.map((e) => (e.kind === 'msg' ? [...e.header] : e.kind))).to.deep.equal([[1, 1, 1], [2, 2, 2], [3, 3, 3]]);
    } finally {
      addon.finalize();
    }
  });

  it('a delayed allreduce starts after its delay, and a later collective does not overtake it', () => withStarted(async (addon) => {
    const order: string[] = [];
    const t0 = performance.now();
    const late = addon.allreduce(new Float64Array([7]), 40_000).then((v) => {
      order.push('allreduce');
      return { v: [...v], ms: performance.now() - t0 };
    });
    const after = addon.barrier().then(() => order.push('barrier'));
    const [{ v, ms }] = await Promise.all([late, after]);
    expect(v).to.deep.equal([7]);
    expect(ms).to.be.at.least(39);
    expect(order).to.deep.equal(['allreduce', 'barrier']);
  }));
  it('a delayed allreduce with a quiet time starts once the comm thread has seen no traffic that long', () => withStarted(async (addon) => {
    const t0 = performance.now();
    // nothing travels: it starts after 2 ms of quiet, not after its 400 ms pause
    const [v] = await addon.allreduce(new Float64Array([5]), 400_000, 0, undefined, 2000);
    const quietMs = performance.now() - t0;
    expect(v).to.equal(5);
    expect(quietMs).to.be.below(200);
    // messages every millisecond keep the rank from being quiet for 20 ms: it waits its 60 ms pause
    const traffic = setInterval(() => addon.send(0, new Uint8Array([1]), []), 1);
    const t1 = performance.now();
    await addon.allreduce(new Float64Array([1]), 60_000, 0, undefined, 20_000);
    const busyMs = performance.now() - t1;
    clearInterval(traffic);
    expect(busyMs).to.be.at.least(59);
  }));

  it('a delayed allreduce called after a poll found a batch starts after its delay where the JS thread cannot call MPI itself', () => withStarted(async (addon) => {
    // Loopback has no direct path: the comm thread must take and start it, though the JS thread
    // had just polled (and then polls again in vain, going idle).
    const first = addon.allreduce(new Float64Array([1]));
    let got = false;
    for (let i = 0; i < 1000 && !got; i++) got = addon.poll(10_000, () => {});
    expect(got, 'a poll found the completion').to.equal(true);
    await first;
    const t0 = performance.now();
    const late = addon.allreduce(new Float64Array([7]), 1000);
    addon.poll(2000, () => {});
    const [v] = await within(late, 3000, 'the delayed allreduce');
    expect(v).to.equal(7);
    expect(performance.now() - t0).to.be.at.least(0.9);
  }));

  it('poll() hands the next batch to the callback on the JS thread, or returns false when none comes in time', async () => {
    const addon = requireNative();
    const events: NativeEvent[] = [];
    const onArrivals = (meta: Float64Array, bytes: Uint8Array, extra: unknown, length: number) => {
      events.push(...arrivalEvents(meta, bytes, extra as never, length));
    };
    addon.start(onArrivals);
    try {
      expect(addon.poll(1000, onArrivals)).to.equal(false);
      addon.send(0, new Uint8Array([7, 7]), []);
      let got = false;
      for (let i = 0; i < 1000 && !got; i++) got = addon.poll(10_000, onArrivals);
      expect(got).to.equal(true);
      expect(events.filter((e) => e.kind === 'msg')).to.have.length(1);
      expect(() => addon.poll(10, undefined as never)).to.throw(TypeError, /onArrivals/);
    } finally {
      addon.finalize();
    }
    expect(() => addon.poll(10, onArrivals)).to.throw(/start\(\) first/);
  });
});
