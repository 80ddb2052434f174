/**
 * Compile-time checks of the typed outputs: this file fails `npm run build` (tsc) if a typed send
 * stops being checked. The runtime part only proves the well-typed graph runs.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

describe('typing of make_tt outputs (compiled by tsc)', () => {
  it('accepts well-typed sends and rejects ill-typed ones at compile time', async () => {
    await ttg.initialize();
    const toA = new ttg.Edge<number, string>('toA');
    const aToB = new ttg.Edge<[number, number], Float64Array>('aToB');
    const aCtl = new ttg.Edge<string, void>('aCtl');
    const seen: string[] = [];
    const a = ttg.make_tt((k: number, s: string, out) => {
      out.send(0, [k, k], new Float64Array(1));
      out.sendk(1, s);
      out.broadcast(0, [[1, 2], [3, 4]], new Float64Array(2));
      out.broadcast([0, 1], [[[5, 6]], ['x']], new Float64Array(1));
      if (k < 0) {
        // @ts-expect-error key of terminal 0 is a [number, number] tuple, not a number
        out.send(0, k, new Float64Array(1));
        // @ts-expect-error value of terminal 0 is a Float64Array, not a string
        out.send(0, [k, k], 'nope');
        // @ts-expect-error there is no output terminal 2
        out.send(2, 'x', undefined);
        // @ts-expect-error terminal 1 carries string keys
        out.sendk(1, 3);
      }
    }, [toA], [aToB, aCtl], { name: 'A' });
    const b = ttg.make_tt((k: [number, number], v: Float64Array) => { seen.push(`B${k.join(',')}:${v.length}`); }, [aToB], [], { name: 'B' });
    const c = ttg.make_tt((k: string, _ctl: void) => { seen.push(`C${k}`); }, [aCtl], [], { name: 'C' });
    const ctlA = new ttg.Edge<void, void>('ctlA');
    const ctlB = new ttg.Edge<void, void>('ctlB');
    const keylessCtl = ttg.make_tt((_k: void, _a: void, _b: void) => { seen.push('D'); }, [ctlA, ctlB], [], { name: 'D' });
    const mixedData = new ttg.Edge<string, string>('mixedData');
    const mixed = ttg.make_tt((_k: string, _v: string, _c: void) => {}, [mixedData, aCtl], [], { name: 'E' });
    ttg.make_graph_executable(a, b, c, keylessCtl, mixed);
    a.invoke(7, 'hello');
    keylessCtl.invoke();
    // @ts-expect-error invoke needs the input value of type string
    if (seen.length > 99) a.invoke(7, 3);
    // @ts-expect-error a data input cannot be left out (only control inputs can, and only all of them)
    if (seen.length > 99) a.invoke(7);
    if (seen.length > 99) {
      keylessCtl.invoke(undefined, undefined, undefined);
      c.invoke('y');
      c.invoke('y', undefined);
      mixed.invoke('k', 'v', undefined);
      // @ts-expect-error with a data value in the list, control inputs cannot be left out
      mixed.invoke('k', 'v');
      // @ts-expect-error leaving out values is all or nothing
      keylessCtl.invoke(undefined, undefined);
    }
    await ttg.fence();
    expect(seen.sort()).to.deep.equal(['B1,2:2', 'B3,4:2', 'B5,6:1', 'B7,7:1', 'Chello', 'Cx', 'D']);
  });
});
