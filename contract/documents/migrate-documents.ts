import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZId } from '../access/schemas.js';
import { named } from '../common/named.js';
import { ZJobStatus } from '../common/job-status.js';

export const migrateDocuments = operation({
  path: '/v2/organizations/documents/migrate',
  summary: 'Migrate Documents',
  description: [
    'Gives a document a new ID, as a background job: the document, its grants and everything keyed to it (comment threads, comments, reactions, notifications, activity, recordings, collaborative data, live state, presence, judgments, events) move to `newDocumentId`; afterwards `documentId` is unknown.',
    'NOT_FOUND for an unknown organization or document; ALREADY_EXISTS when `newDocumentId` is taken; INVALID_ARGUMENT when it equals `documentId`.',
    'The job checks the new ID again when it runs: if a document took it meanwhile, the migration fails with that reason and nothing moves.',
    'Follow it with Migrate Documents Status.',
  ].join(' '),
  data: z
    .object({ organizationId: ZId, documentId: ZId, newDocumentId: ZId })
    .strict()
    .refine((d) => d.documentId !== d.newDocumentId, { message: 'newDocumentId must differ from documentId', path: ['newDocumentId'] }),
  result: resultOf(named('DocumentMigration', z.object({ migrationId: z.string() }))),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-roadmap', newDocumentId: 'doc-roadmap-2026' },
    result: { status: 'success', message: 'Document migration started.', data: { migrationId: 'mig_01KM34KSY05XNW5XG9A066H32Q' } },
  },
});

export const getMigrateDocumentsStatus = operation({
  path: '/v2/organizations/documents/migrate/status',
  summary: 'Migrate Documents Status',
  description:
    'The state of a migration: `pending`, `in_progress`, `completed` or `failed` (with `reason`). NOT_FOUND for a migrationId that is not of this application and organization.',
  data: z.object({ organizationId: ZId, migrationId: ZId }).strict(),
  result: resultOf(
    named(
      'Migration',
      z.object({ migrationId: z.string(), status: ZJobStatus, reason: z.string().optional().describe('Why it failed; only with `failed`.') }),
    ),
  ),
  example: {
    data: { organizationId: 'org-acme', migrationId: 'mig_01KM34KSY05XNW5XG9A066H32Q' },
    result: {
      status: 'success',
      message: 'Migration status retrieved successfully.',
      data: { migrationId: 'mig_01KM34KSY05XNW5XG9A066H32Q', status: 'completed' },
    },
  },
});
