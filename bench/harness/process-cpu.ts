/** CPU time of another process, every thread included (Linux /proc), for benches that charge each side its own CPU. */
import { readdirSync, readFileSync } from 'node:fs';

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

/** The fields of /proc/<pid>/stat after the command name (field 3, the state, first); undefined once it exited. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The parent of process `pid` (a PostgreSQL backend's is the postmaster). */
export function parentPid(pid: number): number {
  return Number(statFields(pid)?.[1]);
}

/**
 * CPU milliseconds of process `pid` and of every process below it, those still running and those
 * it has reaped: a PostgreSQL server's whole cost (postmaster, backends, parallel and background workers).
 */
export function processTreeCpuMs(pid: number): number {
  const children = new Map<number, number[]>();
  const fields = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (f === undefined) continue;
    fields.set(Number(entry), f);
    children.set(Number(f[1]), [...(children.get(Number(f[1])) ?? []), Number(entry)]);
  }
  let ms = 0;
  const walk = (p: number): void => {
    const f = fields.get(p);
    if (f !== undefined) ms += ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / TICKS_PER_SECOND;
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return ms;
}
