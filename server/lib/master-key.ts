import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The 32-byte master key that seals secrets at rest. `COLLAB_MASTER_KEY`
 * (base64 or hex) wins; otherwise the embedded default keeps a key file,
 * created once with mode 0600, in the data directory. Losing the key makes
 * sealed secrets unreadable, so it is never regenerated over an existing file.
 */
export function loadMasterKey(options: { envValue: string | undefined; dataDir: string }): Buffer {
  if (options.envValue !== undefined && options.envValue !== '') return parseKey(options.envValue);
  const path = join(options.dataDir, 'master.key');
  try {
    return parseKey(readFileSync(path, 'utf8').trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    // `wx` fails if another process created the file first; then use theirs.
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return parseKey(readFileSync(path, 'utf8').trim());
  }
}

function parseKey(text: string): Buffer {
  const candidates = [/^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : null, Buffer.from(text, 'base64')];
  const key = candidates.find((k) => k !== null && k.length === 32);
  if (!key) throw new Error('COLLAB_MASTER_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}
