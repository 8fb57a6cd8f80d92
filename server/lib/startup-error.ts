/**
 * One line for an error that stops a start or a CLI run. Our own errors are
 * one line already; library errors (Prisma puts the call site first and the
 * cause last) are reduced to their last line, the cause.
 */
export function startupErrorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').map((line) => line.trim()).filter((line) => line !== '').at(-1) ?? 'unknown error';
}

/** Wraps a failure to reach an external service so the message names the variable at fault. */
export function blameVariable(variable: string, error: unknown, secret: string): Error {
  const cause = startupErrorLine(error)
    // The URL may hold a password; never repeat it.
    .split(secret)
    .join(`<${variable}>`);
  const code = (error as { code?: unknown } | null)?.code;
  return new Error(`${variable}: cannot connect (${typeof code === 'string' && !cause.includes(code) ? `${code}: ` : ''}${cause})`, { cause: error });
}
