import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../config/index.js';
import { resolveSecretKey } from '../config/secrets.js';
import { allOrganizations, createRuntime, openMigratedDatabase, scheduledJobs } from '../compose.js';
import { lockEmbeddedDatabase } from '../db/embedded-lock.js';
import { startDispatcher, type Dispatcher } from '../jobs/dispatcher/dispatcher.js';
import { startJobRunner, type JobRunner } from '../jobs/runner/runner.js';
import { seedDemo, type DemoSeed } from './demo.js';

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * `patron serve`: migrate, seed a demo organization on the very first embedded start, listen, deliver webhooks
 * (unless --no-dispatch), shut down cleanly.
 */
export async function serve(options: { dispatch?: boolean; jobs?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  config.secretKey = (await resolveSecretKey(config.secretKey, config.dataDir)).key;
  const unlock = config.databaseUrl ? async () => {} : await lockEmbeddedDatabase(config.dataDir);
  const database = await openMigratedDatabase(config).catch(async (error: unknown) => {
    await unlock();
    throw error;
  });

  const organizations = await allOrganizations(database.db);
  const demo = database.engine === 'pglite' && organizations.length === 0 ? await seedDemo(database.db) : null;
  const runtime = await createRuntime(config, { database });
  let dispatcher: Dispatcher | undefined;
  let jobs: JobRunner | undefined;

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) runtime.app.log.error({ err }, 'shutting down after an unexpected error');
    else runtime.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // app.close() stops accepting connections and waits for in-flight requests before the database closes; the
    // dispatcher stops at the same time (in-flight POSTs get a short grace, then are recorded "interrupted").
    await Promise.all([dispatcher?.stop(), jobs?.stop(), runtime.close()]);
    await database.close();
    await unlock();
  });

  await runtime.app.listen({ port: config.port, host: config.host });
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
  }
  const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  runtime.app.log.info({ readyInMs: Math.round(performance.now()), engine: database.engine }, 'ready');
  process.stdout.write(banner(baseUrl, database.engine, config.dataDir, demo, organizations.length));
}

function banner(baseUrl: string, engine: string, dataDir: string, demo: DemoSeed | null, organizationCount: number) {
  const where = engine === 'pglite' ? `embedded database in ${dataDir}` : 'PostgreSQL';
  const lines = ['', `Patron is serving ${baseUrl}/v1 (${where}). API reference: ${baseUrl}/docs`];
  if (demo) {
    lines.push(
      `Created the demo organization "${demo.organization.name}" (${demo.organization.id}) and a key with every permission:`,
      `  ${demo.key}`,
      'It is shown only now. Try it:',
      `  curl -H "Authorization: Bearer ${demo.key}" ${baseUrl}/v1/organization`,
    );
  } else {
    const stopFirst = engine === 'pglite' ? 'stop the server (the embedded database is single-process), then ' : '';
    lines.push(
      organizationCount === 0
        ? `No organization yet: ${stopFirst}run  npm run patron -- org create --name "Acme"`
        : `To make an API key, ${stopFirst}run  npm run patron -- key create --org <organization id> --permissions all`,
      '  (list organizations with  npm run patron -- org list)',
    );
  }
  return lines.join('\n') + '\n\n';
}
