import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { ROOT } from '../readme/readme.js';

/** The deployment examples of the operator guide (docs/operations.md#process-management). */

const SYSTEMD = join(ROOT, 'examples', 'systemd');
const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path));
if (!analyze) console.log('skipping the systemd unit check: systemd-analyze is not installed');

describe('the systemd unit', () => {
  it.skipIf(!analyze)('passes systemd-analyze verify without a warning', async () => {
    const { stdout, stderr } = await promisify(execFile)(analyze!, ['verify', join(SYSTEMD, 'collab-backend.service')]);
    expect(stderr).toBe('');
    expect(stdout).toBe('');
  });

  it('stops the server gracefully: SIGTERM, with more time than the server takes by default', () => {
    const unit = readFileSync(join(SYSTEMD, 'collab-backend.service'), 'utf8');
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/collab-backend\/collab\.env$/m);
    const stop = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    expect(stop * 1000).toBeGreaterThan(10_000);
  });

  it("has an environment file the server's configuration accepts, with the data directory the unit gives it", () => {
    const env = Object.fromEntries(
      readFileSync(join(SYSTEMD, 'collab.env'), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('#'))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const config = loadConfig(env);
    expect(config.dataDir).toBe('/var/lib/collab-backend');
    expect(config.databaseUrl).toBe('file:/var/lib/collab-backend/collab.db');
    expect(config.trustProxy).toBe(1);
  });
});
