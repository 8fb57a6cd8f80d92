import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * What must hold of the database after any sequence of requests, checked
 * with plain SQL after the fuzz run. The access tables link by natural keys
 * within one application and the repos do the cascades (see
 * prisma/models.prisma), so the schema cannot enforce these; a request that
 * half-applied or cascaded wrongly leaves an orphan here.
 * Returns one line per violation (empty: consistent).
 */
export async function checkConsistency(databaseUrl: string): Promise<string[]> {
  if (databaseUrl.startsWith('file:')) {
    const db = new Database(databaseUrl.slice('file:'.length), { readonly: true, fileMustExist: true });
    try {
      const problems: string[] = [];
      const integrity = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
      if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') problems.push(`integrity_check: ${JSON.stringify(integrity)}`);
      const foreignKeys = db.prepare('PRAGMA foreign_key_check').all();
      if (foreignKeys.length > 0) problems.push(`foreign_key_check: ${JSON.stringify(foreignKeys.slice(0, 5))}`);
      const columns = db.prepare(`SELECT m.name AS "table", p.name AS "column" FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`).all() as Column[];
      for (const check of invariants(columns)) {
        const rows = db.prepare(check.sql).all();
        if (rows.length > 0) problems.push(`${check.name}: ${JSON.stringify(rows.slice(0, 5))}`);
      }
      return problems;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const problems: string[] = [];
    const columns = (await client.query<Column>(`SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns WHERE table_schema = current_schema()`)).rows;
    for (const check of invariants(columns)) {
      const rows = (await client.query(check.sql)).rows;
      if (rows.length > 0) problems.push(`${check.name}: ${JSON.stringify(rows.slice(0, 5))}`);
    }
    // PostgreSQL enforces its constraints on write; a row that breaks a validated one would mean corruption.
    const invalid = (await client.query(`SELECT conname FROM pg_constraint WHERE NOT convalidated`)).rows;
    if (invalid.length > 0) problems.push(`constraints not validated: ${JSON.stringify(invalid)}`);
    return problems;
  } finally {
    await client.end();
  }
}

interface Column {
  table: string;
  column: string;
}

/** The same SQL on SQLite and PostgreSQL. */
function invariants(columns: Column[]): { name: string; sql: string }[] {
  const tablesWith = (column: string) => [...new Set(columns.filter((c) => c.column === column).map((c) => c.table))].filter((t) => !t.startsWith('_'));
  const checks: { name: string; sql: string }[] = [];
  for (const table of tablesWith('workspaceId')) {
    checks.push({ name: `${table} rows of a missing workspace`, sql: `SELECT t."workspaceId" FROM "${table}" t WHERE NOT EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = t."workspaceId")` });
  }
  for (const table of tablesWith('apiKeyId').filter((t) => t !== 'ApiKey')) {
    checks.push({ name: `${table} rows of a missing application`, sql: `SELECT t."apiKeyId" FROM "${table}" t WHERE NOT EXISTS (SELECT 1 FROM "ApiKey" k WHERE k."id" = t."apiKeyId")` });
  }
  // Deleting an organization deletes everything in it.
  for (const table of ['Folder', 'Document', 'UserGroup', 'UserGroupMember']) {
    checks.push({
      name: `${table} rows of a missing organization`,
      sql: `SELECT t."organizationId" FROM "${table}" t WHERE NOT EXISTS (SELECT 1 FROM "Organization" o WHERE o."apiKeyId" = t."apiKeyId" AND o."id" = t."organizationId")`,
    });
  }
  checks.push({
    name: 'Document rows in a missing folder',
    sql: `SELECT d."organizationId", d."id", d."folderId" FROM "Document" d WHERE d."folderId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "Folder" f WHERE f."apiKeyId" = d."apiKeyId" AND f."organizationId" = d."organizationId" AND f."id" = d."folderId")`,
  });
  checks.push({
    name: 'Folder rows under a missing parent',
    sql: `SELECT c."organizationId", c."id", c."parentId" FROM "Folder" c WHERE c."parentId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "Folder" p WHERE p."apiKeyId" = c."apiKeyId" AND p."organizationId" = c."organizationId" AND p."id" = c."parentId")`,
  });
  checks.push({
    name: 'UserGroupMember rows of a missing group',
    sql: `SELECT m."organizationId", m."groupId" FROM "UserGroupMember" m WHERE NOT EXISTS (SELECT 1 FROM "UserGroup" g WHERE g."apiKeyId" = m."apiKeyId" AND g."organizationId" = m."organizationId" AND g."id" = m."groupId")`,
  });
  return checks;
}
