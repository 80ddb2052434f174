/**
 * What every example does first: parse its command line (exit 2 with the usage on bad input, 0
 * after printing it for `--help`),
 * honour `--trace FILE`, and join the world with the device options given on the command line.
 */
import * as ttg from 'ttg';
import { HelpRequested } from './flags.js';

/** Command-line options shared by the examples. */
export interface CommonOptions {
  backend: string | undefined;
  workers: number | undefined;
  devices: number | undefined;
  memory: number | undefined;
  trace: string | undefined;
}

/**
 * Parses the arguments with `parse`, then initializes ttg (with the device options `more` adds);
 * returns the options and the world.
 */
export async function startExample<O extends CommonOptions>(parse: (argv: readonly string[]) => O,
  more: (opts: O) => NonNullable<ttg.InitializeOptions['device']> = () => ({})): Promise<{ opts: O; world: ttg.World }> {
  let opts: O;
  try {
    opts = parse(process.argv.slice(2));
  } catch (e) {
    if (e instanceof HelpRequested) {
      console.log(e.usage);
      process.exit(0);
    }
    console.error((e as Error).message);
    process.exit(2);
  }
  if (opts.trace !== undefined) process.env['TTG_TRACE'] ??= opts.trace;
  const device: NonNullable<ttg.InitializeOptions['device']> = {};
  if (opts.backend !== undefined) device.backend = opts.backend;
  if (opts.workers !== undefined) device.streams = opts.workers;
  if (opts.devices !== undefined) device.devices = opts.devices;
  if (opts.memory !== undefined) device.memory = opts.memory;
  return { opts, world: await ttg.initialize({ device: { ...device, ...more(opts) } }) };
}
