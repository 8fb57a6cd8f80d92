/**
 * The scope a page token is bound to (see lib/page-token.ts): the query's
 * parts as one JSON array, so two different part lists never give the same
 * text (a joined string could: ['a,b'] and ['a', 'b']).
 */
export const pageScope = (...parts: unknown[]): string => JSON.stringify(parts);
