// A real-time client: joins a collaborative document as the user of a token
// from Generate Token, types into it and waits until the server has it.
// Browsers and Tiptap's collaboration extension use the same provider.
//
//   node examples/realtime-client.mjs <server URL> <user token> <organizationId> <documentId> <editorId> <text to append>
import { HocuspocusProvider } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';

const [base, token, organizationId, documentId, editorId, text] = process.argv.slice(2);
if (!text) {
  console.error('usage: node examples/realtime-client.mjs <server URL> <user token> <organizationId> <documentId> <editorId> <text to append>');
  process.exit(2);
}
const timeout = setTimeout(() => fail('no answer within 20 s'), 20_000);
function fail(reason) {
  console.error(`realtime client: ${reason}`);
  process.exit(1);
}

const doc = new Y.Doc();
const provider = new HocuspocusProvider({
  url: `${base.replace(/^http/, 'ws')}/crdt`,
  // One Y.Doc per editor: <organizationId>/<documentId>/<editorId>, each part
  // URI-encoded (the SDK exports this as crdtDocumentName).
  name: [organizationId, documentId, editorId].map(encodeURIComponent).join('/'),
  document: doc,
  token,
  WebSocketPolyfill: WebSocket, // Node 20 has no global WebSocket; browsers need none
  onAuthenticationFailed: ({ reason }) => fail(`refused: ${reason}`),
});

provider.on('synced', ({ state }) => {
  if (!state) return;
  // Add CRDT Data of type text keeps its value under contentKey "content".
  const content = doc.getText('content');
  console.log(`joined ${organizationId}/${documentId}/${editorId}, it reads ${JSON.stringify(content.toString())}`);
  provider.on('unsyncedChanges', ({ number }) => {
    if (number > 0) return;
    console.log(`the server has it: ${JSON.stringify(content.toString())}`);
    clearTimeout(timeout);
    provider.destroy();
  });
  content.insert(content.length, text);
});
