import type { Db } from '../../../db/client.js';
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
export function createAccessRepos(db: Db) {
  return {
    organizations: createOrganizationsRepo(db),
    folders: createFoldersRepo(db),
    documents: createDocumentsRepo(db),
    grants: createGrantsRepo(db),
    groups: createGroupsRepo(db),
    users: createUsersRepo(db),
  };
}

export type AccessRepos = ReturnType<typeof createAccessRepos>;
