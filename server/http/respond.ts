/** The success envelope, written once for every handler. */
export function ok<T>(message: string, data: T) {
  return { status: 200 as const, body: { result: { status: 'success' as const, message, data } } };
}

/** Success without data (e.g. CRDT add/update). */
export function done(message: string) {
  return { status: 200 as const, body: { result: { status: 'success' as const, message } } };
}

/** A page of a list: `pageToken` beside `data` in `result`, null on the last page. */
export function paged<T>(message: string, page: { items: T[]; pageToken: string | null }) {
  return { status: 200 as const, body: { result: { status: 'success' as const, message, data: page.items, pageToken: page.pageToken } } };
}
