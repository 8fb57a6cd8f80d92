import { z } from 'zod';

/** The specification's default page size; also our maximum (it names none). */
export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 1000;

export const ZPageSize = z
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_SIZE)
  .optional()
  .describe(`Items per page; default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}.`);

export const ZPageToken = z.string().min(1).max(1024).optional().describe('The pageToken of the previous page; opaque.');
