import { createServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../config/index.js';
import { resolveSecretKey } from '../config/secrets.js';
import {
  allOrganizations,
  createRuntime,
  openMigratedDatabase,
  scheduledJobs,
  startMailSender,
  type MailSender,
  type Runtime,
} from '../compose.js';
import { lockEmbeddedDatabase } from '../db/embedded-lock.js';
import { startDispatcher, type Dispatcher } from '../jobs/dispatcher/dispatcher.js';
import { startJobRunner, type JobRunner } from '../jobs/runner/runner.js';
import { signInLink } from '../auth/accounts.js';
import { seedDemo, type DemoSeed } from './demo.js';

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * V8 allocates objects from a code site whose objects often survived a young collection straight in the old
 * generation ("allocation-site pretenuring"). Under load a request's rows and records are still alive at a young
 * collection often enough for V8 to pretenure their sites, and then every request's garbage piles up in the old
 * generation: 170 MB every ten seconds, cleared by a full collection whose marking threads took a core from
 * PostgreSQL for 80 ms and stalled every request meanwhile (docs/journal/2026-11-28-node-cpu-per-page-gc-stalls.md).
 * Without it a request's garbage dies young, where it is cheap. Set before serving, when no request site has been
 * judged yet. Three companions cannot be set from here, because V8 reads them as the heap is made: a young generation
 * full-sized from the start (--min-semi-space-size=16), an old generation that may reach 128 MB before its first full
 * collection and is never held below it (--initial-old-space-size=128), and no full collections started by V8's
 * memory reducer (--no-memory-reducer). `npm start` passes all three (docs/api.md#running-the-server).
 */
function keepRequestGarbageYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/**
 * `patron serve`: migrate, seed a demo organization on the very first embedded start, listen, deliver webhooks
 * (unless --no-dispatch), shut down cleanly.
 */
export async function serve(options: { dispatch?: boolean; jobs?: boolean } = {}): Promise<void> {
  keepRequestGarbageYoung();
  const config = loadConfig();
  // A taken port or an unknown HOST fails the start in milliseconds, before the database is opened and migrated
  // (seconds for the embedded one); the listen below still reports one that appears in between.
  await assertListenable(config.host, config.port);
  config.secretKey = (await resolveSecretKey(config.secretKey, config.dataDir)).key;
  const unlock = config.databaseUrl ? async () => {} : await lockEmbeddedDatabase(config.dataDir);
  const database = await openMigratedDatabase(config).catch(async (error: unknown) => {
    await unlock();
    throw error;
  });

  // Until it listens, a failed start closes what it opened and fails the command (exit 1, one line naming the
  // cause) at once; the graceful-close handler below exits 0, so it is only installed once serving.
  const closeUnstarted = async () => {
    await database.close();
    await unlock();
  };
  let runtime: Runtime;
  let demo: DemoSeed | null;
  let organizations: { id: string }[];
  try {
    organizations = await allOrganizations(database.db);
    demo = database.engine === 'pglite' && organizations.length === 0 ? await seedDemo(database, config) : null;
    runtime = await createRuntime(config, { database });
  } catch (error) {
    await closeUnstarted();
    throw error;
  }
  try {
    await runtime.app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await runtime.close();
    await closeUnstarted();
    throw new Error(`cannot listen on ${config.host}:${config.port}: ${listenFailure(error)}`);
  }
  let dispatcher: Dispatcher | undefined;
  let jobs: JobRunner | undefined;
  let mail: MailSender | undefined;

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) runtime.app.log.error({ err }, 'shutting down after an unexpected error');
    else runtime.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // app.close() stops accepting connections and waits for in-flight requests before the database closes; the
    // dispatcher stops at the same time (in-flight POSTs get a short grace, then are recorded "interrupted").
    await Promise.all([dispatcher?.stop(), jobs?.stop(), mail?.stop(), runtime.close()]);
    await database.close();
    await unlock();
  });

  if (options.dispatch !== false) {
    dispatcher = startDispatcher({ database, config, logger: runtime.app.log, registry: runtime.metrics.registry });
  }
  if (options.jobs !== false) {
    // Queued jobs (review summary generations) are woken at once by the request that queued them, not the poll.
    jobs = startJobRunner({
      db: database.db,
      jobs: scheduledJobs(config, runtime.metrics.registry),
      logger: runtime.app.log,
      registry: runtime.metrics.registry,
    });
    // Queued mail goes out through SMTP_URL, or is only logged without it (docs/api.md#mail).
    mail = startMailSender({
      db: database.db,
      smtpUrl: config.smtpUrl,
      mailFrom: config.mailFrom,
      logger: runtime.app.log,
      // The embedded database belongs to this process alone (docs/api.md#one-process-per-embedded-database).
      soleSender: database.engine === 'pglite',
    });
  }
  runtime.app.log.info({ readyInMs: Math.round(performance.now()), engine: database.engine }, 'ready');
  // stdout carries the JSON log lines only; the banner is for the person at the terminal
  // (docs/api.md#embedded-database-and-cli).
  process.stderr.write(
    banner({
      host: config.host,
      port: config.port,
      engine: database.engine,
      dataDir: config.dataDir,
      demo,
      organizationCount: organizations.length,
    }),
  );
}

const WILDCARD_LOOPBACK = new Map([
  ['0.0.0.0', '127.0.0.1'],
  ['::', '::1'],
]);

/** The URL a person on this machine opens: a wildcard address (0.0.0.0, ::) is not one, its loopback is. */
function localUrl(host: string, port: number): string {
  const shown = WILDCARD_LOOPBACK.get(host) ?? host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** Binds the address for a moment, so an address that cannot be served is known before anything is opened. */
async function assertListenable(host: string, port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  }).catch((error: unknown) => {
    throw new Error(`cannot listen on ${host}:${port}: ${listenFailure(error)}`);
  });
}

/** Why listen failed, in words an operator acts on, with the system's code. */
function listenFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') return 'another process is using that port (EADDRINUSE); set PORT to a free one';
  if (code === 'EADDRNOTAVAIL') return 'no interface of this machine has that address (EADDRNOTAVAIL); check HOST';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `HOST does not resolve (${String(code)})`;
  if (code === 'EACCES') return 'not allowed to listen on that port (EACCES); use a port above 1023';
  return error instanceof Error ? error.message : String(error);
}

function banner({
  host,
  port,
  engine,
  dataDir,
  demo,
  organizationCount,
}: {
  host: string;
  port: number;
  engine: string;
  dataDir: string;
  demo: DemoSeed | null;
  organizationCount: number;
}) {
  const baseUrl = localUrl(host, port);
  const where = [
    ...(WILDCARD_LOOPBACK.has(host) ? [`HOST=${host}: every interface`] : []),
    engine === 'pglite' ? `embedded database in ${dataDir}` : 'PostgreSQL',
  ].join('; ');
  const lines = ['', `Patron is serving ${baseUrl}/v1 (${where}). API reference: ${baseUrl}/docs`];
  if (demo) {
    lines.push(
      `Created the demo organization "${demo.organization.name}" (${demo.organization.id}),`,
      'with a sample store, loyalty program and reviews to try, and a key with every permission:',
      `  ${demo.key}`,
      'and a test key with every permission, acting only on its test data (test mode: nothing it does touches live data):',
      `  ${demo.testKey}`,
      'They are shown only now. Try the live one:',
      `  curl -H "Authorization: Bearer ${demo.key}" ${baseUrl}/v1/organization`,
      'or open the API reference signed in with it, and send any request from the page:',
      `  ${baseUrl}/docs#key=${demo.key}`,
      `Sign in to the dashboard as its owner (${demo.owner.email}) with this one-time link, valid 24 hours:`,
      `  ${signInLink(baseUrl, demo.owner.signInToken)}`,
      `(a new link, with the server stopped: npm run patron -- user link ${demo.owner.id})`,
      `or with its demo password, which the API reference's sign-in example sends: ${demo.owner.password}`,
      '(public: change it in the dashboard before anyone else can reach this server)',
    );
  } else {
    const stopFirst = engine === 'pglite' ? 'stop the server (the embedded database is single-process), then ' : '';
    lines.push(
      organizationCount === 0
        ? `No organization yet: ${stopFirst}run  npm run patron -- org create --name "Acme"`
        : `To make an API key, ${stopFirst}run  npm run patron -- key create --org <organization id> --permissions all` +
            ' (add --test for a test key)',
      '  (list organizations with  npm run patron -- org list)',
    );
  }
  return lines.join('\n') + '\n\n';
}
