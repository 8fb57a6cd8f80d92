/**
 * The name of an editor's Y.Doc on the wire: `<organizationId>/<documentId>/<editorId>`.
 * IDs may contain `/`, so each part is percent-encoded (encodeURIComponent);
 * IDs without `/`, `%` or other reserved characters read as themselves. A
 * name is accepted only in its canonical spelling, so two spellings can never
 * open two copies of one document.
 */
export interface EditorKey {
  organizationId: string;
  documentId: string;
  editorId: string;
}

export function documentNameOf(key: EditorKey): string {
  return [key.organizationId, key.documentId, key.editorId].map(encodeURIComponent).join('/');
}

/** The key a document name stands for, or null when it is not a canonical three-part name. */
export function editorKeyOf(name: string): EditorKey | null {
  const parts = name.split('/');
  if (parts.length !== 3) return null;
  let decoded: string[];
  try {
    decoded = parts.map(decodeURIComponent);
  } catch {
    return null;
  }
  const [organizationId, documentId, editorId] = decoded as [string, string, string];
  const key = { organizationId, documentId, editorId };
  if (decoded.some((part) => part === '' || part.length > 256 || part === '__proto__')) return null;
  return documentNameOf(key) === name ? key : null;
}
