/** CPU time of another process, every thread included (Linux /proc), for benches that charge each side its own CPU. */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds process `pid` has used so far. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** Resident set size of process `pid` in bytes. */
export function processRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kib === undefined ? Number.NaN : Number(kib) * 1024;
}
