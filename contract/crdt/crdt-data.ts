import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZTimestampMs } from '../common/content.js';
import { emptyResult, operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';

export const CRDT_TYPES = ['text', 'map', 'array', 'xml'] as const;
export const ZCrdtType = named('CrdtType', z.enum(CRDT_TYPES).describe('`text` (Y.Text), `map` (Y.Map), `array` (Y.Array), `xml` (Y.XmlFragment).'));
export type TCrdtType = z.infer<typeof ZCrdtType>;

export const DEFAULT_CONTENT_KEY = 'content';
export const MAX_CONTENT_KEY_LENGTH = 256;

const ZContentKey = z
  .string()
  .min(1)
  .max(MAX_CONTENT_KEY_LENGTH)
  .describe(`The name of the shared type inside the editor's Y.Doc. Default \`${DEFAULT_CONTENT_KEY}\`; \`default\` for one rich-text editor family (Tiptap / y-prosemirror).`);

/** What the value of each type must be (the specification's "data must match type"). */
const fits: Record<TCrdtType, (value: unknown) => boolean> = {
  text: (value) => typeof value === 'string',
  xml: (value) => typeof value === 'string',
  map: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  array: (value) => Array.isArray(value),
};
const expected: Record<TCrdtType, string> = { text: 'a string', xml: 'a string', map: 'an object', array: 'an array' };

export const ZCrdtEditorKey = {
  organizationId: ZId,
  documentId: ZId,
  editorId: ZId.describe('The editor on the document; its Y.Doc is `<organizationId>/<documentId>/<editorId>` over WebSocket.'),
};

export const ZCrdtWriteData = named(
  'CrdtWriteData',
  z
    .object({
      ...ZCrdtEditorKey,
      data: z
        .union([z.string(), z.array(z.unknown()), z.record(z.unknown())])
        .describe('The whole value: a string for `text` and `xml` (XML of elements and text, e.g. `<paragraph>Hi</paragraph>`), an object for `map`, an array for `array`.'),
      type: ZCrdtType,
      contentKey: ZContentKey.optional(),
    })
    .strict()
    .superRefine((value, ctx) => {
      if (!fits[value.type](value.data)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['data'], message: `must be ${expected[value.type]} for type ${value.type}` });
      }
    }),
);

export const addCrdtData = operation({
  path: '/v2/crdt/add',
  summary: 'Add CRDT Data',
  description:
    'Stores the editor\'s data: the value is applied as Yjs operations to the live Y.Doc, so clients connected over WebSocket receive it. ALREADY_EXISTS when the editor already has data (a document that clients edited over WebSocket but that was never added has none: Add registers its type and content key and makes its content equal `data`). NOT_FOUND for an unknown organization or document. INVALID_ARGUMENT when `data` does not match `type`, for XML that does not parse, and when the editor\'s Y.Doc already holds another kind of shared type under `contentKey`.',
  data: ZCrdtWriteData,
  result: emptyResult(),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', editorId: 'editor-summary', type: 'text', data: 'Q3 goals: ship comments v2.' },
    result: { status: 'success', message: 'CRDT data added.' },
  },
});

export const updateCrdtData = operation({
  path: '/v2/crdt/update',
  summary: 'Update CRDT Data',
  description:
    'Replaces the editor\'s data. Only the difference between the stored value and `data` is applied, as Yjs operations in one transaction (text: a minimal insert/delete diff; map: per-key set/delete; array and xml: a minimal diff of items / child nodes, editing a changed XML element in place), so what editors typed since the value was stored (or read with Get CRDT Data, which stores what it returns) is kept, and every connected client receives the change. `type` and `contentKey` must be those the data was added with (a Yjs shared type cannot change kind; delete the data first to store another type): otherwise INVALID_ARGUMENT. NOT_FOUND when the editor has no data.',
  data: ZCrdtWriteData,
  result: emptyResult(),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', editorId: 'editor-summary', type: 'text', data: 'Q3 goals: ship comments v2 and presence.' },
    result: { status: 'success', message: 'CRDT data updated.' },
  },
});

export const ZCrdtData = named(
  'CrdtData',
  z.object({
    data: z.unknown().describe('The current value: a string for `text` and `xml`, an object for `map`, an array for `array`.'),
    type: ZCrdtType,
    contentKey: z.string(),
    lastUpdated: ZTimestampMs.describe('When the stored state last changed (REST write or saved editor change).'),
    state: z.string().describe('The whole Y.Doc as one Yjs update, base64: `Y.applyUpdate(doc, base64Decode(state))`.'),
  }),
);
export type TCrdtData = z.infer<typeof ZCrdtData>;

export const getCrdtData = operation({
  path: '/v2/crdt/get',
  summary: 'Get CRDT Data',
  description:
    'The editor\'s current data, read from the live Y.Doc: it includes what connected clients typed, which is saved before the answer (so an Update computed from this value applies exactly its own change). NOT_FOUND for an unknown organization or document, and when the editor has no data (never added, or deleted).',
  data: z.object(ZCrdtEditorKey).strict(),
  result: resultOf(ZCrdtData),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', editorId: 'editor-summary' },
    result: {
      status: 'success',
      message: 'CRDT data retrieved.',
      data: {
        data: 'Q3 goals: ship comments v2 and presence.',
        type: 'text',
        contentKey: 'content',
        lastUpdated: 1773393871206,
        state: 'AQOj4pnBDQAEAQdjb250ZW50GlEzIGdvYWxzOiBzaGlwIGNvbW1lbnRzIHYyhKPimcENGQEuxKPimcENGaPimcENGg0gYW5kIHByZXNlbmNlAA==',
      },
    },
  },
});

export const deleteCrdtData = operation({
  path: '/v2/crdt/delete',
  summary: 'Delete CRDT Data',
  description:
    'Deletes the editor\'s data: its content is removed through Yjs operations, so connected clients see it emptied, and the type and content key are forgotten (Get answers NOT_FOUND, Add may store again). NOT_FOUND when the editor has no data.',
  data: z.object(ZCrdtEditorKey).strict(),
  result: emptyResult(),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', editorId: 'editor-summary' },
    result: { status: 'success', message: 'CRDT data deleted.' },
  },
});
