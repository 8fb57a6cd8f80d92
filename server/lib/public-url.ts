/**
 * The address third parties reach this server at, for the URLs it hands
 * out (an async workflow step's callback): PUBLIC_URL when the operator set
 * it, else the address the server listens on, known once it listens.
 */
export function createPublicUrl(configured: string | undefined) {
  let listening: string | undefined;
  return {
    get(): string {
      return configured ?? listening ?? 'http://localhost:8080';
    },
    /** Called by the server once it listens (PORT 0 picks the port then). */
    listeningAt(url: string): void {
      listening = url;
    },
  };
}

export type PublicUrl = ReturnType<typeof createPublicUrl>;
