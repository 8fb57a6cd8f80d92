import type { DemoResult } from './create-demo.js';

/** `npm run demo`'s human-friendly form of what `cli demo` prints as JSON. */
export function demoText(demo: DemoResult): string {
  const { credentials: c, created } = demo;
  const table = (rows: [string, string][]) => {
    const width = Math.max(...rows.map(([label]) => label.length));
    return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`);
  };
  const organizationName = new Map(created.organizations.map((o) => [o.organizationId, o.organizationName]));
  const userName = new Map(created.users.map((u) => [u.userId, u.name]));
  const comments = created.commentAnnotations.reduce((sum, a) => sum + a.commentIds.length, 0);
  const activities = created.activityIds.reduce((sum, a) => sum + a.activityIds.length, 0);

  return [
    `Demo workspace ${c.workspaceId} created; owner ${demo.ownerEmail} (verified).`,
    '',
    'Credentials (keep them: like `workspace create`, this is the only time they are printed):',
    ...table([
      ['x-service-api-key', c.apiKey],
      ['x-service-auth-token', c.authToken],
      ['x-service-workspace-id', c.workspaceId],
      ['x-service-workspace-auth-token', c.workspaceAuthToken],
    ]),
    '',
    'Sample data:',
    ...table([
      ['organizations', created.organizations.map((o) => `${o.organizationId} (${o.organizationName})`).join(', ')],
      ['folders', created.folders.map((f) => `${f.folderId} (${f.folderName}) in ${f.organizationId}`).join(', ')],
      ...created.organizations.map(({ organizationId }): [string, string] => [
        `documents of ${organizationId}`,
        created.documents
          .filter((d) => d.organizationId === organizationId)
          .map((d) => `${d.documentId}${d.folderId ? ` (in ${d.folderId})` : ''}`)
          .join(', '),
      ]),
      ...created.users.map((u): [string, string] => [
        u.userId,
        `${u.name} <${u.email}>: ${u.access.map((a) => `${a.accessRole} in ${organizationName.get(a.organizationId) ?? a.organizationId}`).join(', ')}`,
      ]),
      [
        'comments',
        `${created.commentAnnotations.length} threads (${created.commentAnnotations.map((a) => `${a.annotationId} on ${a.documentId}`).join(', ')}), ${comments} comments, ${created.reactions.length} reaction${created.reactions.length === 1 ? '' : 's'}`,
      ],
      [
        'notifications',
        created.notifications
          .map((n) => `${userName.get(n.userId) ?? n.userId}: ${n.notificationIds.length} in ${organizationName.get(n.organizationId) ?? n.organizationId}`)
          .join(', '),
      ],
      ['activity records', `${activities} (activity logging is on for this workspace)`],
    ]),
    '',
    `Start the server if it is not running (npm start; these lines call ${demo.baseUrl}), then try:`,
    ...demo.tryIt.flatMap((t) => ['', `# ${t.title}`, t.curl]),
    '',
    'The same as JSON, for scripts: npm run --silent cli -- demo',
    '',
  ].join('\n');
}
