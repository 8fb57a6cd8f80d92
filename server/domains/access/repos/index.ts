import type { Db } from '../../../db/client.js';
import type { Clock } from '../../../lib/clock.js';
import { createDocumentsRepo } from './documents.js';
import { createFoldersRepo } from './folders.js';
import { createGrantsRepo } from './grants.js';
import { createGroupsRepo } from './groups.js';
import { createOrganizationsRepo } from './organizations.js';
import { createUsersRepo } from './users.js';

/**
 * The access model's repos, one per aggregate, built once by the access
 * module (../module.ts). Consumers take only the repos (and methods) they
 * use; this set exists for the wiring, and for tests that build their own to
 * watch the queries of one aggregate.
 */
export function createAccessRepos(db: Db, clock: Clock) {
  return {
    organizations: createOrganizationsRepo(db, clock),
    folders: createFoldersRepo(db, clock),
    documents: createDocumentsRepo(db, clock),
    grants: createGrantsRepo(db, clock),
    groups: createGroupsRepo(db, clock),
    users: createUsersRepo(db, clock),
  };
}

export type AccessRepos = ReturnType<typeof createAccessRepos>;
