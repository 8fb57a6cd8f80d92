/** The calling application: its ID scopes every query, its key is echoed in folder records. */
export interface App {
  apiKeyId: string;
  apiKey: string;
}
