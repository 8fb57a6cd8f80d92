/**
 * A value that cannot be stored as CRDT data. The message is meant for the
 * caller of the REST operation; the service turns it into INVALID_ARGUMENT.
 */
export class CrdtValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CrdtValueError';
  }
}
