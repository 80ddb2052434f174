/**
 * ttg: template task graphs for Node.js. This file only re-exports, in dependency order.
 */
export { TtgError, type TtgErrorCode, type TtgErrorContext } from './ttg/errors.js';
export { Edge, fuse } from './ttg/edge.js';
export type { Out, KeyOf, ValueOf, Body, BodyResult, AnyEdge, Indices, InputValues, InvokeValues, BroadcastKeys } from './ttg/types.js';
export type { Reducer } from './ttg/input-terminal.js';
export { register_copier } from './ttg/cow.js';
export { register_split_metadata, type SplitMetadataDescriptor } from './serialize/split-metadata.js';
export { SequencedKeysConstraint, type SequencedKeysOptions, type OrdinalMapper } from './ttg/constraint.js';
export { TT, make_tt, type TTOptions, type TTImpl } from './ttg/tt.js';
export { make_graph_executable, dot } from './ttg/graph.js';
export type { FenceReport, IncompleteTask, HeldTaskReport } from './ttg/fence-report.js';
export { World, initialize, execute, fence, finalize, type InitializeOptions, type FenceOptions } from './ttg/world.js';
export { Buffer, type BufferArray, type AnyBuffer } from './device/buffer.js';
export type { DeviceOptions } from './device/config.js';
export type { NativeDeviceInfo } from './ttg/native.js';
export * as device from './device/api.js';
