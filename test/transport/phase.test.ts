/**
 * The phase bit of a header (both kinds: fixed input header and msgpack) and the gate that holds
 * messages of the next phase until the fence ends. The end-to-end race is in fence-phases.test.ts.
 */
import { expect } from 'chai';

import { decode, encode } from '../../src/serialize/codec.js';
import { TYPED } from '../../src/serialize/typed-arrays.js';
import { decodeInput, encodeInput } from '../../src/transport/input-header.js';
import { PHASE_BIT, PhaseGate, stampPhase, takePhase } from '../../src/transport/phase.js';
import { Wire, type WireMessage } from '../../src/ttg/common/wire.js';

/** Every kind of message, each as the header a sender would encode. */
function headers(): Array<{ name: string; bytes: Uint8Array; msg: WireMessage }> {
  const fixed: WireMessage = [Wire.Input, [[9, 2, [-42]]], new Int32Array([1, 2, 3])];
  const msgs: Array<[string, WireMessage]> = [
    ['input', [Wire.Input, [[7, 1, ['k', 2]]], { v: 1.5 }]],
    ['stream size', [Wire.StreamSize, 7, 1, [3, 4], 5]],
    ['finalize', [Wire.Finalize, 7, 0, 'k']],
    ['invoke', [Wire.Invoke, 3, { i: 1 }]],
    ['failure', [Wire.Failure, 'E_TASK_FAILED', 'boom', 'T', 0, 2, ['SyntaxError', 'bad', 'SyntaxError: bad', { code: 'X' }, null], 7]],
    ['trace', [Wire.Trace, 1, new Uint8Array([1, 2])]],
  ];
  return [
    { name: 'fixed input', bytes: encodeInput(fixed)!.bytes, msg: fixed },
    ...msgs.map(([name, msg]) => ({ name, bytes: encode(msg).bytes, msg })),
  ];
}

/** JSON replacer that writes a typed array as its class and length. */
function shape(_k: string, v: unknown): unknown {
  return ArrayBuffer.isView(v) ? `${v.constructor.name}(${(v as Uint8Array).length})` : v;
}

function decodeAny(bytes: Uint8Array): WireMessage {
  return (decodeInput(bytes, undefined) ?? decode<WireMessage>(bytes)).msg;
}

describe('phase bit', () => {
  it('is free in both kinds of header: no typed-array code and no message kind sets it', () => {
    expect(TYPED.length).to.be.at.most(PHASE_BIT);
    for (const { name, bytes } of headers()) expect(bytes[1]! & PHASE_BIT, name).to.equal(0);
  });

  it('round-trips: a stamped header gives back its bit and decodes to the message sent', () => {
    for (const { name, bytes, msg } of headers()) {
      for (const bit of [0, PHASE_BIT]) {
        const sent = new Uint8Array(bytes);
        stampPhase(sent, bit);
        expect(takePhase(sent), name).to.equal(bit);
        expect(sent, name).to.deep.equal(new Uint8Array(bytes));
        // typed arrays come back allocated for the payload, not filled: compare their class and length
        const got = decodeAny(sent);
        expect(JSON.stringify(got, shape), name).to.equal(JSON.stringify(msg, shape));
      }
    }
  });

  it('changes one bit of one byte and nothing else', () => {
    for (const { name, bytes } of headers()) {
      const sent = new Uint8Array(bytes);
      stampPhase(sent, PHASE_BIT);
      expect(sent.length, name).to.equal(bytes.length);
      expect(sent.findIndex((b, i) => b !== bytes[i]), name).to.equal(1);
      expect(sent[1]! ^ bytes[1]!, name).to.equal(PHASE_BIT);
    }
  });
});

describe('phase gate', () => {
  it('holds messages of the next phase and hands them over, in arrival order, when the fence ends', () => {
    const gate = new PhaseGate();
    expect(gate.bit).to.equal(0);
    const got: number[] = [];
    for (let i = 0; i < 3; i++) gate.hold(() => got.push(i));
    expect(got).to.deep.equal([]);
    for (const deliver of gate.next()) deliver();
    expect(got).to.deep.equal([0, 1, 2]);
    expect(gate.bit).to.equal(PHASE_BIT);
    expect(gate.deferred).to.equal(3);
  });

  it('alternates the bit fence after fence and forgets what it handed over', () => {
    const gate = new PhaseGate();
    gate.hold(() => {});
    expect(gate.next()).to.have.length(1);
    expect(gate.next()).to.have.length(0);
    expect(gate.bit).to.equal(0);
    expect(gate.deferred).to.equal(1);
  });
});
