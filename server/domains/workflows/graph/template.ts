import { lookupPath, splitPath } from './path.js';

/**
 * `{{ dot.path }}` substitution for notification subjects and bodies. Only
 * substitution: the text between the braces is a path, never an
 * expression, and what a value renders to is not read again for tokens
 * (an output that contains `{{…}}` shows it as written).
 */

/** What a rendered template is cut to, in UTF-8 bytes. */
export const MAX_RENDERED_BYTES = 64 * 1024;

// No `{` or `}` between the braces keeps the scan linear: a run of `{{`
// without a closing pair fails at the next brace.
const TOKEN = /\{\{([^{}]*)\}\}/g;
const PATH = /^[^\s.]+(?:\.[^\s.]+)*$/;

/**
 * Replaces each `{{ path }}` (whitespace inside the braces allowed) with
 * the value at that path under `roots`, following own properties only: a
 * string as it is, a number, boolean or bigint as String() gives it, an
 * object or array as JSON, and anything else (missing, null) as ''. Text
 * between braces that is not a dot path (`{{ a b }}`, `{{}}`) stays as
 * written. The result is cut to `maxBytes` at a character boundary.
 */
export function renderTemplate(template: string, roots: Record<string, unknown>, options: { maxBytes?: number } = {}): string {
  const maxBytes = options.maxBytes ?? MAX_RENDERED_BYTES;
  const parts: string[] = [];
  let bytes = 0;
  // Stops once the cap is reached, so a template of many large tokens never builds the whole text.
  const add = (text: string): boolean => {
    const room = maxBytes - bytes;
    const fitted = fitUtf8(text, room);
    parts.push(fitted.text);
    bytes += fitted.bytes;
    return fitted.text.length === text.length;
  };
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    if (!add(template.slice(last, match.index))) return parts.join('');
    const path = match[1]!.trim();
    const segments = PATH.test(path) ? splitPath(path) : undefined;
    if (!add(segments ? display(lookupPath(roots, segments)) : match[0])) return parts.join('');
    last = match.index + match[0].length;
  }
  add(template.slice(last));
  return parts.join('');
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      // A cycle or a bigint inside: nothing from a JSON step output, so nothing to show.
      return '';
    }
  }
  return '';
}

const encoder = new TextEncoder();

/** The longest start of `text` that takes at most `room` UTF-8 bytes, never splitting a character. */
function fitUtf8(text: string, room: number): { text: string; bytes: number } {
  if (room <= 0) return { text: '', bytes: 0 };
  // Cheap exit: at most 3 bytes per UTF-16 code unit.
  if (text.length * 3 <= room) return { text, bytes: encoder.encode(text).length };
  const { read, written } = encoder.encodeInto(text, new Uint8Array(room));
  return { text: text.slice(0, read), bytes: written };
}
