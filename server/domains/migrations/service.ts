import { z } from 'zod';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { getMigrateDocumentsStatus, migrateDocuments } from '../../../contract/documents/migrate-documents.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists, notFound } from '../../lib/app-error.js';
import { publicJobStatus, refuseJob } from '../../platform/job-status.js';
import type { Jobs } from '../../platform/jobs.js';
import type { OwnedDataRegistry } from '../../platform/owned-data.js';
import type { AccessLookups } from '../access/lookups.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import type { Caller } from '../../platform/caller.js';

const ZMigration = z.object({ apiKeyId: z.string(), organizationId: z.string(), documentId: z.string(), newDocumentId: z.string() });

/**
 * Migrate Documents: a document and everything keyed to it take a new ID, as
 * a durable job. The request refuses what it can see at once (an unknown
 * document, a new ID that is taken); the job looks again inside its own unit
 * of work, because another request may have taken the new ID meanwhile.
 */
export function createMigrationsService(deps: {
  organizations: Pick<OrganizationsRepo, 'lockOrganization'>;
  documents: Pick<DocumentsRepo, 'findDocument'>;
  find: Pick<AccessLookups, 'document' | 'organization'>;
  uow: UnitOfWork;
  jobs: Jobs;
  owned: OwnedDataRegistry;
}) {
  const { organizations, documents, find, uow, jobs, owned } = deps;

  const migration = jobs.define({
    kind: 'documents.migrate',
    idPrefix: 'mig',
    payload: ZMigration,
    async run({ payload, attempt }) {
      const { apiKeyId, organizationId, documentId, newDocumentId } = payload;
      try {
        // Everything moves in one unit of work: a crash leaves either nothing moved or all of it.
        return await uow.run(async () => {
          // Structural changes of the organization (folder and organization deletion) take turns with the move.
          await organizations.lockOrganization(apiKeyId, organizationId);
          const source = await documents.findDocument(apiKeyId, organizationId, documentId);
          const target = await documents.findDocument(apiKeyId, organizationId, newDocumentId);
          if (source === null) {
            // The move is one transaction, so on a later attempt a source gone with the target
            // present is the mark of an earlier attempt that committed before its worker could record it.
            if (target !== null && attempt > 1) return { moved: true };
            return refuseJob(`document ${documentId} no longer exists in organization ${organizationId}; nothing was moved`);
          }
          if (target !== null) return refuseJob(`document ${newDocumentId} was created after the migration was requested; nothing was moved`);
          await owned.moveDocument({ apiKeyId, organizationId, documentId }, newDocumentId);
          return { moved: true };
        });
      } catch (error) {
        // A document created under the new ID while the move ran (PostgreSQL sees it at the write).
        if (isUniqueViolation(error)) return refuseJob(`document ${newDocumentId} was created while the migration ran; nothing was moved`);
        throw error;
      }
    },
  });

  return {
    async migrateDocuments(app: Caller, input: DataOf<typeof migrateDocuments>) {
      return uow.run(async () => {
        await find.organization(app.apiKeyId, input.organizationId);
        await find.document(app.apiKeyId, input.organizationId, input.documentId);
        if ((await documents.findDocument(app.apiKeyId, input.organizationId, input.newDocumentId)) !== null) {
          throw alreadyExists(`document ${input.newDocumentId} already exists in organization ${input.organizationId}: migrate onto a new ID`);
        }
        const migrationId = await jobs.enqueue(migration, { apiKeyId: app.apiKeyId, ...input }, { apiKeyId: app.apiKeyId });
        return { migrationId };
      });
    },

    async getMigrateDocumentsStatus(app: Caller, input: DataOf<typeof getMigrateDocumentsStatus>) {
      const job = await jobs.get(input.migrationId);
      const payload = job !== null && job.kind === migration.kind && job.apiKeyId === app.apiKeyId ? ZMigration.safeParse(job.payload) : undefined;
      // Another application's, another organization's or another kind of job reads exactly like an unknown one.
      if (job === null || !payload?.success || payload.data.organizationId !== input.organizationId) {
        throw notFound(`migration ${input.migrationId} does not exist in organization ${input.organizationId}`);
      }
      return { migrationId: job.id, ...publicJobStatus(job) };
    },
  };
}

export type MigrationsService = ReturnType<typeof createMigrationsService>;
