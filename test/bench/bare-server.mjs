// The baseline for `npm run bench`: bare Express with JSON body parsing and a
// fixed success envelope on POST to any path. Runs in its own process (like the
// real server) so it does not share an event loop with autocannon.
// Prints `listening on http://127.0.0.1:PORT` on stdout once ready; exits when
// its stdin closes, so it cannot outlive the bench process.
import express from 'express';
import { serveUntilStdinEnds } from './child-process.mjs';

const BODY = JSON.stringify({ result: { status: 'success', message: 'ok', data: {} } });

const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.use(express.json());
app.post(/.*/, (_req, res) => {
  res.status(200).type('application/json').send(BODY);
});

serveUntilStdinEnds(app);
