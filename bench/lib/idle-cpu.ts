/**
 * CPU use of a rank with nothing to do: rank 0 waits in `fence()` while rank 1 computes alone for
 * `ms` milliseconds in one task (every rank calls it).
 */
import * as ttg from 'ttg';

/** Percent of one core that rank 0's process used while it waited (0 on other ranks). */
export async function idleCpuPct(rank: number, ms: number): Promise<number> {
  const go = new ttg.Edge<number, void>('idle-go');
  const busy = ttg.make_tt((_k: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end) { /* compute */ }
  }, [go], [], { name: 'Busy' });
  busy.set_procmap(() => 1);
  ttg.make_graph_executable(busy);
  await ttg.fence();
  if (rank === 0) busy.invoke(0, undefined);
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  await ttg.fence();
  const c1 = process.cpuUsage(c0);
  return rank === 0 ? ((c1.user + c1.system) / 1000 / (performance.now() - w0)) * 100 : 0;
}
