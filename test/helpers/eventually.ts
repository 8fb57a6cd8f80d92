/**
 * Polls `check` until it returns true (or a truthy promise), every `everyMs`,
 * failing with `what` after `withinMs`. For outcomes of background work
 * (deliveries, jobs) that tests cannot await directly; never a speed assertion:
 * the limit only stops a broken test from hanging.
 */
export async function eventually(check: () => boolean | Promise<boolean>, what = 'condition', withinMs = 20_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * The bound of an assertion that something does NOT happen in time (a process
 * that must not exit yet, a start-up that must keep waiting): `promise`'s
 * outcome if it settles within `ms`, else `stillPending`. Here the wait is
 * the point of the test; never use it to let something happen (see eventually).
 */
export async function outcomeWithin<T, P>(promise: Promise<T>, ms: number, stillPending: P): Promise<T | P> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<P>((resolve) => (timer = setTimeout(() => resolve(stillPending), ms)));
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}
