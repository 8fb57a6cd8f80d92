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
