import type { LiveEditor } from './live-client.js';

const consumed = new WeakMap<LiveEditor, number>();

/** The editor's next stateless message not yet returned by this function (waits for the provider's event). */
export function nextStateless(editor: LiveEditor): Promise<string> {
  return new Promise((resolve) => {
    const take = () => {
      const index = consumed.get(editor) ?? 0;
      if (editor.stateless.length <= index) return false;
      consumed.set(editor, index + 1);
      resolve(editor.stateless[index]!);
      return true;
    };
    if (take()) return;
    const listener = () => {
      if (take()) editor.provider.off('stateless', listener);
    };
    editor.provider.on('stateless', listener);
  });
}

/** Resolves when `predicate()` holds: checked now and after every awareness change the client sees. */
export function untilAwareness(editor: LiveEditor, predicate: () => boolean): Promise<void> {
  const awareness = editor.provider.awareness!;
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    const check = () => {
      if (predicate()) {
        awareness.off('change', check);
        resolve();
      }
    };
    awareness.on('change', check);
  });
}

/** The awareness states the client sees for a user's API presence entry. */
export function apiPresenceOf(editor: LiveEditor, userId: string): Record<string, unknown>[] {
  return [...editor.provider.awareness!.getStates().values()].filter(
    (state) => state.source === 'api' && (state.user as { userId?: string } | undefined)?.userId === userId,
  );
}
