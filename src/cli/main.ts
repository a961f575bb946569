#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import { isUuid } from '../util/uuid.js';
import { packageVersion } from './version.js';

/*
 * Each command loads its module when it runs (docs/api.md#embedded-database-and-cli): `patron --version` loads
 * nothing of the app, and `patron org list` only what it reads; the composition root, which imports every resource,
 * only for the commands that need the whole app.
 */

function uuid(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('expected a UUID.');
  return value.toLowerCase();
}

function booleanValue(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('expected true or false.');
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a positive integer.');
  return number;
}

function boundedLimit(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 1000)
    throw new InvalidArgumentError('expected a whole number from 1 to 1000.');
  return number;
}

/**
 * Three options list names that come from the resources in their help: the lists export and import take, and the
 * permission catalog. They are loaded only when the command line names that command (its help, `patron help <command>`
 * and the help after an error print the same lists), so that no other command pays for them; `key create` loads the
 * composition root, the only place that knows every resource's permissions.
 */
const words = new Set(process.argv.slice(2));
const operator = words.has('export') || words.has('import') ? await import('../operator.js') : undefined;
const permissionCatalog =
  words.has('key') && words.has('create') ? (await import('../compose.js')).permissionCatalog : [];

const program = new Command('patron')
  .description('Patron: admin API for customer-engagement data. Configuration comes from the environment (see README).')
  .version(packageVersion(), '-V, --version', 'print the version')
  .showHelpAfterError();

program
  .command('serve')
  .description(
    'Migrate the database, serve the API (PORT, HOST) and deliver webhooks. Logs are JSON lines on stdout; the start banner (URLs, the demo key) is on stderr.',
  )
  .option('--no-dispatch', 'do not deliver webhooks from this process (run `patron dispatch` instead)')
  .option('--no-jobs', 'do not run scheduled jobs (the overnight loyalty run) nor send mail from this process')
  .action(async (options) => (await import('./serve.js')).serve(options));

program
  .command('dispatch')
  .description('Deliver webhooks only (PostgreSQL; several may run at once). `serve` already does this by default.')
  .action(async () => (await import('./dispatch.js')).dispatch());

program
  .command('migrate')
  .description('Bring the database schema up to date and exit.')
  .option('--json', 'print one JSON object')
  .action(async (options: { json?: boolean }) => (await import('./migrate.js')).migrateCommand(options));

program
  .command('jobs')
  .description('Scheduled jobs.')
  .command('run')
  .description(
    'Run a job for one organization now (e.g. loyalty.overnight, reviewSummary.refresh) and print its outcome as JSON.',
  )
  .argument('<name>', 'job name: retention.prune, loyalty.overnight, reviewSummary.refresh or reviewSummary.generate')
  .requiredOption('--org <id>', 'organization id', uuid)
  .option('--now <timestamp>', "the job's clock (ISO 8601 with offset); default now")
  .action(async (name: string, options) => (await import('./jobs.js')).runJob(name, options));

const org = program.command('org').description('Organizations.');
org
  .command('create')
  .description('Create an organization.')
  .requiredOption('--name <name>', 'display name')
  .option('--timezone <tz>', 'IANA time zone', 'UTC')
  .option('--api-requests-per-minute <n>', 'rate-limit ceiling (default 600)', positiveInteger)
  .option('--json', 'print one JSON object { id, name, timezone }')
  .action(async (options) => (await import('./organizations.js')).createOrganizationCommand(options));
org
  .command('update')
  .description(
    "Change an organization's name, time zone or plan allowances (the plan is the operator's: the API cannot change it). A new allowance governs the next request in every process.",
  )
  .argument('<id>', 'organization id', uuid)
  .option('--name <name>', 'display name')
  .option('--timezone <tz>', 'IANA time zone')
  .option('--api-requests-per-minute <n>', 'organization bucket ceiling (at least 10)', positiveInteger)
  .option('--loyalty-events-per-minute <n>', 'POST /loyalty-events bucket ceiling', positiveInteger)
  .option('--loyalty-stamps-per-minute <n>', 'POST /loyalty-stamps bucket ceiling', positiveInteger)
  .option('--json', 'print one JSON object { organization, changed }')
  .action(async (id: string, options) => (await import('./organizations.js')).updateOrganizationCommand(id, options));
org
  .command('list')
  .description('List the live organizations, each with the id of its test twin (test mode).')
  .option('--json', 'print one JSON object { data: [...] }')
  .action(async (options) => (await import('./organizations.js')).listOrganizationsCommand(options));
org
  .command('delete')
  .description(
    'Delete an organization and every row it owns, in batches, and print the rows removed per table. Asks for its name or id; --yes skips that (required without a terminal).',
  )
  .argument('<id>', 'organization id', uuid)
  .option('--yes', 'do not ask for confirmation (for scripts)')
  .option('--json', 'print one JSON object { id, name, deleted: { <table>: rows }, total, seconds }')
  .action(async (id: string, options) => (await import('./org-delete.js')).deleteOrganizationCommand(id, options));

program
  .command('export')
  .description(
    'Export a list to a CSV or JSON Lines file through a running server (an export job): shows its progress, then downloads the file. Needs PATRON_URL (default http://127.0.0.1:$PORT) and PATRON_KEY, or --url and --key.',
  )
  .requiredOption('--resource <resource>', `the list to export: ${(operator?.EXPORT_RESOURCES ?? []).join(', ')}`)
  .addOption(new Option('--format <format>', 'file format').choices(['csv', 'jsonl']).default('csv'))
  .option('--filter <json>', 'a filter document, as JSON (docs/api.md#filter-documents)')
  .option('--search <text>', "the list's search")
  .option('--quick-filter <id>', 'a quick filter (saved view) of that list', uuid)
  .option('--include <extras>', 'comma-separated extras, as the list takes them')
  .option('--sort <sort>', "one of the list's sorts, e.g. -createdAt")
  .option('-o, --output <file>', 'where to write the file; - for stdout (default <resource>-<job id>.<format>)')
  .option('--url <url>', 'the server (default PATRON_URL)')
  .option('--key <key>', 'a secret key of the organization (default PATRON_KEY)')
  .action(async (options) => (await import('./export.js')).exportCommand(options));

program
  .command('import')
  .description(
    "Import a CSV or JSON Lines file through a running server (an import job): uploads it as it is read, shows the rows as they are written, then the counts and the rows skipped. Each row is a row of the resource's import (docs/api.md#import-rows). Needs PATRON_URL (default http://127.0.0.1:$PORT) and PATRON_KEY, or --url and --key.",
  )
  .argument('<file>', 'the file: .csv, .jsonl or .ndjson, each perhaps .gz (sent compressed); - reads stdin')
  .requiredOption('--resource <resource>', `what the rows are: ${(operator?.IMPORT_RESOURCES ?? []).join(', ')}`)
  .addOption(
    new Option('--format <format>', "file format (default from the file's extension; required for -)").choices([
      'csv',
      'jsonl',
    ]),
  )
  .option('--strict', 'fail the job at the first row that cannot be imported, instead of skipping it')
  .option('--merge-metadata', "merge each row's metadata into the stored metadata instead of replacing it")
  .option(
    '--earn-loyalty <boolean>',
    'orders: whether newly created orders earn points and stamps (default true)',
    booleanValue,
  )
  .option('--url <url>', 'the server (default PATRON_URL)')
  .option('--key <key>', 'a secret key of the organization (default PATRON_KEY)')
  .addHelpText(
    'after',
    `
Progress goes to stderr (a bar on a terminal, plain lines otherwise), then the
counts and up to 50 skipped rows; stdout gets only the job's id. Exits 0 when
the job succeeds, with skipped rows or without; 1 when the server refuses the
file or the job fails or is cancelled. Ctrl-C stops the upload, or cancels the
job once it is made (rows already written stay); a second Ctrl-C quits and
leaves the job running.

Examples:
  patron import customers.csv --resource customers
  patron import orders.jsonl.gz --resource orders --earn-loyalty false
  curl -s https://shop.example/products.csv | patron import - --resource products --format csv`,
  )
  .action(async (file: string, options) => (await import('./import.js')).importCommand(file, options));

const events = program.command('events').description('Events of an organization (docs/api.md#events-api).');
events
  .command('tail')
  .description(
    'Print each new event of the organization as it commits, oldest first, one line each (type, id, object id, time), until Ctrl-C. Polls a running server: needs PATRON_URL (default http://127.0.0.1:$PORT) and PATRON_KEY (with events:read), or --url and --key.',
  )
  .requiredOption('--org <id>', 'the organization to watch (the key must belong to it)', uuid)
  .option('--json', 'print each event as its JSON envelope, exactly as a webhook delivery sends it, one per line')
  .option('--interval <ms>', 'milliseconds between polls (default 500)', positiveInteger)
  .option('--url <url>', 'the server (default PATRON_URL)')
  .option('--key <key>', 'a secret key of the organization (default PATRON_KEY)')
  .action(async (options: { org: string; json?: boolean; interval?: number; url?: string; key?: string }) =>
    (await import('./events.js')).tailEvents({ ...options, intervalMs: options.interval }),
  );

const key = program.command('key').description('Secret API keys.');
key
  .command('create')
  .description('Create a secret key for an organization. The key is shown once; only its SHA-256 is stored.')
  .requiredOption('--org <id>', 'organization id', uuid)
  .option('--permissions <list>', `"all" or a comma-separated list of: ${permissionCatalog.join(', ')}`, 'all')
  .option('--name <name>', 'a label to recognise the key by')
  .option('--test', "a test key (sk_test_…): it acts only on the organization's test data, never on live data")
  .option('--json', 'print one JSON object { id, key, permissions, livemode, organizationId }')
  .action(async (options) => (await import('./keys.js')).createKeyCommand(options, permissionCatalog));
key
  .command('list')
  .description("List an organization's keys, live and test (never the secrets).")
  .requiredOption('--org <id>', 'organization id', uuid)
  .option('--json', 'print one JSON object { data: [...] }')
  .action(async (options) => (await import('./keys.js')).listKeysCommand(options));
key
  .command('revoke')
  .description('Revoke a key: it stops working at once.')
  .argument('<id>', 'key id', uuid)
  .option('--json', 'print one JSON object')
  .action(async (id: string, options) => (await import('./keys.js')).revokeKeyCommand(id, options));

const user = program.command('user').description('Dashboard users (docs/api.md#dashboard-sessions).');
user
  .command('create')
  .description(
    'Add a dashboard user to an organization and print a one-time sign-in link, valid 24 hours. Emails are unique across the deployment.',
  )
  .requiredOption('--org <id>', 'organization id', uuid)
  .requiredOption('--email <email>', 'the email the user signs in with')
  .addOption(
    new Option(
      '--role <role>',
      'owner (everything, and users), admin (everything but users) or viewer (every :read permission)',
    )
      .choices(['owner', 'admin', 'viewer'])
      .makeOptionMandatory(),
  )
  .option('--name <name>', 'display name')
  .option('--url <url>', "the server's public URL the link opens (default PATRON_URL, else http://127.0.0.1:$PORT)")
  .option('--json', 'print one JSON object { user, signInLink }')
  .addHelpText(
    'after',
    `
The link opens the dashboard's sign-in page; it works once, and the token
travels in the URL's fragment, so it never reaches a server log. A user with
a password signs in with it; one without gets a new link with
  patron user link <id>

Examples:
  patron user create --org 0196… --email ada@example.com --role owner --name "Ada"
  PATRON_URL=https://patron.example.com patron user create --org 0196… --email bo@example.com --role viewer`,
  )
  .action(async (options) => (await import('./users.js')).createUserCommand(options));
user
  .command('link')
  .description(
    'Print a fresh one-time sign-in link for a user (valid 24 hours; earlier links stay valid until used or expired).',
  )
  .argument('<id>', 'user id', uuid)
  .option('--url <url>', "the server's public URL the link opens (default PATRON_URL, else http://127.0.0.1:$PORT)")
  .option('--json', 'print one JSON object { id, email, signInLink, expiresAt }')
  .action(async (id: string, options) => (await import('./users.js')).linkUserCommand(id, options));
user
  .command('list')
  .description("List an organization's dashboard users (never passwords or links).")
  .requiredOption('--org <id>', 'organization id', uuid)
  .option('--json', 'print one JSON object { data: [...] }')
  .action(async (options) => (await import('./users.js')).listUsersCommand(options));
user
  .command('delete')
  .description("Delete a dashboard user; their sessions and links end at once. An organization's last owner is kept.")
  .argument('<id>', 'user id', uuid)
  .option('--json', 'print one JSON object { id, deleted }')
  .action(async (id: string, options) => (await import('./users.js')).deleteUserCommand(id, options));

program
  .command('audit')
  .description(
    "Print an organization's newest audit log entries: who (key, user or cli), what (method and path), the status answered and the request id. Never a request body.",
  )
  .requiredOption('--org <id>', 'organization id', uuid)
  .option('--limit <n>', 'entries to print, newest first, 1 to 1000', boundedLimit, 50)
  .option('--json', 'print one JSON object { data: [...] }, each entry as GET /v1/audit-log answers it')
  .addHelpText(
    'after',
    `
Entries are kept RETENTION_AUDIT_DAYS days (default 365). To filter or page
further, use GET /v1/audit-log (docs/api.md#audit-log).

Examples:
  patron audit --org 0196… --limit 20
  patron audit --org 0196… --json`,
  )
  .action(async (options) => (await import('./audit.js')).auditCommand(options));

program
  .command('seed')
  .description('Create demo data.')
  .requiredOption('--demo', 'create a demo organization with a full-permission key')
  .option('--json', 'print one JSON object { organization, id, key, permissions, owner }')
  .option(
    '--url <url>',
    "the server's public URL the owner's link opens (default PATRON_URL, else http://127.0.0.1:$PORT)",
  )
  .action(async (options) => (await import('./seed.js')).seedCommand(options));

/**
 * Commander checks required options before unknown ones, so `org create --nmae X` would answer "required option
 * '--name <name>' not specified" and never name the misspelt flag. The required options are therefore checked in a
 * preAction hook instead, which runs after the unknown-option check: a misspelt flag is reported as unknown (with
 * commander's "Did you mean" suggestion), and a missing one still as missing.
 */
function checkRequiredOptionsAfterUnknownOnes(root: Command): void {
  const required = new Map<Command, Option[]>();
  const visit = (command: Command) => {
    const mandatory = command.options.filter((option) => option.mandatory);
    for (const option of mandatory) option.makeOptionMandatory(false);
    if (mandatory.length) required.set(command, mandatory);
    command.commands.forEach(visit);
  };
  visit(root);
  root.hook('preAction', (_root, actionCommand) => {
    for (const option of required.get(actionCommand) ?? []) {
      if (actionCommand.getOptionValue(option.attributeName()) === undefined)
        actionCommand.error(`error: required option '${option.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
        });
    }
  });
}
checkRequiredOptionsAfterUnknownOnes(program);

program.parseAsync().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`patron: ${message}\n`);
  process.exitCode = 1;
});
