// The first requests that name a new organization or document create it; when
// several arrive at once, every one of them succeeds (on PostgreSQL a racing
// insert used to abort all but one with INTERNAL).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

it('concurrent Add Comment Annotations on a new organization and document all succeed', async () => {
  const client = server.client(await server.workspace());
  for (let round = 0; round < 3; round++) {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        client.comments.addCommentAnnotations({
          organizationId: `org-${round}`,
          documentId: `doc-${round}`,
          commentAnnotations: [{ annotationId: `a-${round}-${i}`, from: { userId: `u${i}` }, commentData: [{ commentText: 'hi' }] }],
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  }
});

it('concurrent Add Users on a new organization all succeed', async () => {
  const client = server.client(await server.workspace());
  const results = await Promise.allSettled(
    Array.from({ length: 6 }, (_, i) => client.users.addUsers({ organizationId: 'org-new', users: [{ userId: `u${i}`, name: `U${i}` }] })),
  );
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
});
