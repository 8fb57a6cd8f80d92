import type { z } from 'zod';
import { contract } from '../../contract/index.js';
import type { TUserRef } from '../../contract/common/content.js';
import { HEADERS } from '../http/authenticate.js';

/** One ready-to-run request against the demo data: what it shows, and the shell line. */
export interface TryIt {
  title: string;
  curl: string;
}

type Operation = { path: string; body: z.ZodTypeAny };

/** A string as one POSIX shell word: single-quoted, with any `'` closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The curl lines `demo` prints. Paths come from the contract and each body is
 * checked against its operation's request schema here, so a line that the
 * server would refuse fails the demo instead of the newcomer.
 */
export function tryItLines(baseUrl: string, credentials: { apiKey: string; authToken: string }, users: { ada: Required<TUserRef>; grace: Required<TUserRef> }): TryIt[] {
  const line = <O extends Operation>(title: string, operation: O, data: z.input<O['body']>['data']): TryIt => {
    operation.body.parse({ data });
    const body = JSON.stringify({ data });
    const words = [
      'curl -sS -g',
      shellQuote(`${baseUrl}${operation.path}`),
      '-H',
      shellQuote('content-type: application/json'),
      '-H',
      shellQuote(`${HEADERS.apiKey}: ${credentials.apiKey}`),
      '-H',
      shellQuote(`${HEADERS.authToken}: ${credentials.authToken}`),
      '-d',
      shellQuote(body),
    ];
    return { title, curl: words.join(' ') };
  };
  const { ada, grace } = users;
  return [
    line('Get Documents of Acme Corp', contract.organizations.getDocuments, { organizationId: 'org-acme' }),
    line('Get Comment Annotations on the Q3 plan (a thread with a reply and a reaction)', contract.comments.getCommentAnnotations, {
      organizationId: 'org-acme',
      documentId: 'doc-q3-plan',
    }),
    line(`Get Notifications of ${grace.name} (a mention, a reply, a reaction, a shared checklist)`, contract.notifications.getNotifications, {
      organizationId: 'org-acme',
      userId: grace.userId,
    }),
    line('Get Activity Logs of Acme Corp', contract.activities.getActivityLogs, { organizationId: 'org-acme' }),
    line(`Generate Token for ${ada.name} (a user JWT for the real-time and client APIs)`, contract.permissions.generateToken, {
      userId: ada.userId,
      userProperties: { name: ada.name, email: ada.email },
      permissions: { resources: [{ type: 'organization', id: 'org-acme', accessRole: 'editor' }] },
    }),
  ];
}
