import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';

/** Whether something still accepts connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  // What a supervisor or container runtime does: SIGTERM to the process it started, which is npm.
  it('stops the server gracefully when the npm process gets SIGTERM, releasing the port', async () => {
    const database = await createTestDatabase({ empty: true });
    const npm = spawn('npm', ['start'], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, PORT: '0', DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let serverPid = 0;
    try {
      let stdout = '';
      const port = await new Promise<number>((resolve, reject) => {
        npm.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /"pid":(\d+)[^\n]*"msg":"listening on http:\/\/127\.0\.0\.1:(\d+)"/.exec(stdout);
          if (match) {
            serverPid = Number(match[1]);
            resolve(Number(match[2]));
          }
        });
        npm.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${stdout}`)));
      });
      expect(serverPid).not.toBe(npm.pid);
      expect(await accepts(port)).toBe(true);
      // The built server finds the checked-in document and the Redoc bundle from dist/, as tsx does from server/.
      const document = await fetch(`http://127.0.0.1:${port}/openapi.json`);
      expect(await document.text()).toBe(readFileSync(join(import.meta.dirname, '..', '..', 'openapi', 'openapi.json'), 'utf8'));
      const page = await (await fetch(`http://127.0.0.1:${port}/docs`)).text();
      const bundle = /<script src="([^"]+)">/.exec(page)?.[1] ?? '(no script in /docs)';
      expect((await fetch(`http://127.0.0.1:${port}${bundle}`)).status).toBe(200);

      const exited = once(npm, 'exit');
      npm.kill('SIGTERM');
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(stdout).toContain('"msg":"shutdown complete"');
      expect(alive(serverPid)).toBe(false);
      expect(await accepts(port)).toBe(false);
    } finally {
      if (serverPid && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
      npm.kill('SIGKILL');
      await database.drop();
    }
  }, 240_000);
});
