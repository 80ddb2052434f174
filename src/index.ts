/**
 * ttg: template task graphs for Node.js. This file only re-exports, in dependency order.
 */
export { TtgError, type TtgErrorCode, type TtgErrorContext } from './base/errors.js';
export { Edge, fuse } from './ttg/wiring/edge.js';
export type { Out, KeyOf, ValueOf, Body, BodyResult, AnyEdge, Indices, InputValues, InvokeValues, BroadcastKeys } from './ttg/wiring/types.js';
export type { Reducer } from './ttg/wiring/input-terminal.js';
export { register_copier } from './ttg/run/cow.js';
export { register_split_metadata, type SplitMetadataDescriptor } from './serialize/split-metadata.js';
export { SequencedKeysConstraint, type SequencedKeysOptions, type OrdinalMapper } from './ttg/run/constraint.js';
export { TT, make_tt, type TTOptions, type TTImpl } from './ttg/tt.js';
export type { InputPort } from './ttg/wiring/input-port.js';
export { make_allreduce, type AllreduceOptions } from './ttg/keyed-allreduce.js';
export { make_collector, type Collected, type CollectOn, type Collector, type CollectorOptions } from './ttg/collector.js';
export { make_graph_executable, dot } from './ttg/graph.js';
export type { FenceReport, IncompleteTask, HeldTaskReport, ParkedMessages } from './ttg/phase/fence-report.js';
export { World, type FenceOptions, type Reducible, type ReduceOp } from './ttg/world.js';
export { initialize, execute, fence, finalize, type InitializeOptions } from './world/lifecycle.js';
export { Buffer, type BufferArray, type AnyBuffer } from './device/buffer.js';
export type { DeviceOptions } from './device/config.js';
export type { NativeDeviceInfo } from './native/addon.js';
export * as device from './device/api.js';
