/**
 * A webhook receiver that checks every delivery with verifyWebhook() before trusting it.
 *
 *   WEBHOOK_SECRET=<the endpoint's hmacSecret> node --import tsx clients/typescript/examples/webhook-receiver.ts
 *
 * Listens on 127.0.0.1:4000 (PORT to change). A local endpoint needs the server started with
 * WEBHOOK_ALLOW_PRIVATE_HOSTS=1 ALLOW_HTTP_WEBHOOKS=1 (development only), then e.g.
 *   POST /v1/webhooks { "data": { "url": "http://127.0.0.1:4000/hooks", "events": ["customer.updated"],
 *                                 "hmacSecret": "<the same secret>" } }
 */
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@patron/client';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET to the endpoint secret.');
const seen = new Set<string>();

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      // The raw bytes as received: parsing and re-serializing the JSON would change what was signed.
      // Typed by event name: comparing event.event to a name narrows data to the record it carries.
      const event = verifyWebhook(Buffer.concat(chunks), request.headers, secret);
      // Deliveries are sent at most once, but a resend repeats the idempotencyKey: act on each key once.
      if (!seen.has(event.idempotencyKey)) {
        seen.add(event.idempotencyKey);
        console.log(`${event.event} ${event.idempotencyKey}`, event.data);
      }
      response.writeHead(204).end();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.log(`refused a delivery: ${error.reason}: ${error.message}`);
      response.writeHead(401).end();
    }
  });
});
const port = Number(process.env.PORT ?? 4000);
server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
