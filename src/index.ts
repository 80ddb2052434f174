/**
 * ttg: template task graphs for Node.js. This file only re-exports, in dependency order.
 */
export { TtgError, type TtgErrorCode, type TtgErrorContext } from './base/errors.js';
export { Edge, fuse } from './core/edge.js';
export type { Out, KeyOf, ValueOf, Body, BodyResult, AnyEdge, Indices, InputValues, InvokeValues, BroadcastKeys } from './core/types.js';
export type { Reducer } from './core/input-terminal.js';
export { register_copier } from './core/cow.js';
export { register_split_metadata, type SplitMetadataDescriptor } from './serialize/split-metadata.js';
export { SequencedKeysConstraint, type SequencedKeysOptions, type OrdinalMapper } from './core/constraint.js';
export { TT, make_tt, type TTOptions, type TTImpl } from './core/tt.js';
export type { InputPort } from './core/input-port.js';
export { make_allreduce, type AllreduceOptions } from './core/keyed-allreduce.js';
export { make_graph_executable, dot } from './core/graph.js';
export type { FenceReport, IncompleteTask, HeldTaskReport, ParkedMessages } from './core/fence-report.js';
export { World, type FenceOptions, type Reducible, type ReduceOp } from './core/world.js';
export { initialize, execute, fence, finalize, type InitializeOptions } from './world/lifecycle.js';
export { Buffer, type BufferArray, type AnyBuffer } from './device/buffer.js';
export type { DeviceOptions } from './device/config.js';
export type { NativeDeviceInfo } from './native/addon.js';
export * as device from './device/api.js';
