/**
 * The calling application, the first argument of every service operation:
 * its ID scopes every query (tenancy), and its key is echoed where the
 * specification's records carry `metadata.apiKey`. The HTTP layer passes the
 * authenticated application (http/context.ts `applicationOf`), which has both.
 */
export interface Caller {
  apiKeyId: string;
  apiKey: string;
}
