/** One string for a tuple of values (a map key): their JSON array, so two different tuples never give the same text. */
export const compositeKey = (...parts: unknown[]): string => JSON.stringify(parts);
