import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Whether this system shows sockets per process (Linux /proc). */
export const canMapSockets = existsSync('/proc/net/tcp') && existsSync(`/proc/${process.pid}/fd`);

/**
 * Which of `pids` owns each open local TCP port (Linux /proc): how a receiver
 * tells which server process sent a request, from the request's remote port.
 */
export function socketOwners(pids: readonly number[]): Map<number, number> {
  const inodeOwner = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodeOwner.set(match[1]!, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  const owners = new Map<number, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const port = parseInt(fields[1]!.split(':')[1]!, 16);
      const owner = inodeOwner.get(fields[9]!);
      if (owner !== undefined) owners.set(port, owner);
    }
  }
  return owners;
}

/** Samples socketOwners every `everyMs` until stopped, keeping every port seen. */
export function watchSocketOwners(pids: readonly number[], everyMs = 50): { owners: Map<number, number>; stop(): void } {
  const owners = new Map<number, number>();
  const sample = () => {
    for (const [port, pid] of socketOwners(pids)) owners.set(port, pid);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    owners,
    stop() {
      clearInterval(timer);
      sample();
    },
  };
}
