import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { ErrorStatus, TErrorEnvelope } from '../../contract/common/errors.js';

/** Node's parser and timeout errors, as HTTP status, envelope status and a message without parser internals. */
function describe(code: string | undefined): [number, ErrorStatus, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'INVALID_ARGUMENT', 'the request headers are too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'INVALID_ARGUMENT', 'the request did not arrive in time (see HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS)'];
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_EOF_STATE':
    case 'HPE_CB_CHUNK_COMPLETE':
      return [400, 'INVALID_ARGUMENT', 'the chunked request body is malformed'];
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return [400, 'INVALID_ARGUMENT', 'the request body framing (Content-Length / Transfer-Encoding) is invalid'];
    default:
      return [400, 'INVALID_ARGUMENT', 'the request is not valid HTTP/1.1'];
  }
}

/**
 * The http.Server 'clientError' handler: requests Node's parser refuses
 * never reach Express, and Node's own answer has an empty body. Answer them
 * with the error envelope every other failure gets, then close the socket
 * (the byte stream is no longer trustworthy).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  const response = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  // A reset peer cannot read an answer; a response already under way must not get a second one.
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [http, status, message] = describe(error.code);
  logger.info({ code: error.code, status: http }, 'request refused by the HTTP parser');
  const body = JSON.stringify({ error: { message, status } } satisfies TErrorEnvelope);
  socket.end(
    `HTTP/1.1 ${http} ${STATUS_CODES[http]}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
