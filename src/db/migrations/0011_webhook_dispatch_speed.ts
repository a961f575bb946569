import { sql, type Kysely } from 'kysely';

/**
 * Webhook dispatch in windows, and a cheaper fan-out, to meet the webhook figures
 * (docs/journal/2026-11-21-webhooks.md).
 *
 * Dispatch: an endpoint's queue is a cursor on its own row instead of a status per delivery. Deliveries with
 * `sequence <= settled_through` have their outcome; those in (settled_through, dispatched_through] are the window a
 * dispatcher holding the lease is sending; those above it are waiting. A dispatcher claims a window of deliveries by
 * moving dispatched_through (one small update of the endpoint row), sends them in order and writes all their
 * outcomes in one statement, so a delivery row is written twice in its life (inserted pending, updated once with its
 * outcome) and no index is keyed on a column the dispatcher changes except for manual sends. A window left unsettled
 * by a dead dispatcher is recorded failed "interrupted" by the next claimer, never resent
 * (docs/api.md#crashes-and-interrupted-deliveries).
 *
 * Fan-out: deliveries of recorded events no longer copy the envelope (payload is null; it is composed from the
 * event when sent or read, webhook_envelope below, byte for byte what was stored before); the foreign key to the
 * endpoint, checked per inserted delivery, becomes a delete trigger (deliveries are only ever inserted under the
 * endpoint's row lock, so the check could never fail); the recording statement is a PL/pgSQL function so its plan
 * is cached per connection instead of planned on every write.
 *
 * 0005 and 0007 stay as they were (they may be applied on developer databases); this one is additive.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table webhook_endpoints
      add column dispatched_through bigint not null default 0,
      add column settled_through bigint not null default 0`,
    // Existing queues resume at their first pending delivery; rows a dispatcher left `sending` are swept as before.
    sql`update webhook_endpoints e set
      dispatched_through = coalesce((select min(d.sequence) - 1 from webhook_deliveries d
        where d.organization_id = e.organization_id and d.webhook_id = e.id and d.status = 'pending'), e.last_sequence),
      settled_through = coalesce((select min(d.sequence) - 1 from webhook_deliveries d
        where d.organization_id = e.organization_id and d.webhook_id = e.id and d.status = 'pending'), e.last_sequence)`,

    sql`alter table webhook_deliveries alter column payload drop not null`,
    sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_organization_id_webhook_id_fkey`,
    sql`create function webhook_endpoints_drop_deliveries() returns trigger language plpgsql as $$
      begin
        delete from webhook_deliveries where organization_id = old.organization_id and webhook_id = old.id;
        return null;
      end $$`,
    sql`create trigger webhook_endpoints_drop_deliveries after delete on webhook_endpoints
      for each row execute function webhook_endpoints_drop_deliveries()`,
    // The queue is found through (organization_id, webhook_id, sequence) from the endpoint's cursor; the list pages
    // on the same index. Only deliveries sent by hand are ever `sending` in the table: the sweep's index.
    sql`drop index if exists webhook_deliveries_due_idx`,
    sql`drop index if exists webhook_deliveries_log_idx`,
    sql`create index webhook_deliveries_sending_idx on webhook_deliveries (attempted_at) where status = 'sending'`,
    sql`drop function if exists webhook_dispatch_step`,

    // The envelope of a recorded event: what 0005's fan-out stored, now composed on demand. The timestamp is the
    // recording transaction's now(), which is the event's created_at.
    sql`create function webhook_envelope(p_name text, p_created_at timestamptz, p_id uuid, p_payload json) returns text
      language sql stable parallel safe as $$
        select '{"event":' || to_json(p_name)::text
          || ',"timestamp":"' || to_char(p_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '","idempotencyKey":"' || p_id::text
          || '","data":' || p_payload::text || '}'
      $$`,
    // The delivery record as the API shows it: the envelope composed where it is not stored, and a delivery inside
    // a dispatcher's window reported `sending`.
    sql`create view webhook_delivery_records as
      select d.organization_id, d.id, d.webhook_id, d.sequence, d.event_id, d.event_name, d.idempotency_key, d.url,
        coalesce(d.payload, webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)::json) as payload,
        case when d.status = 'pending' and d.sequence <= w.dispatched_through then 'sending' else d.status end as status,
        d.error, d.response_status, d.attempted_at, d.created_at, d.updated_at
      from webhook_deliveries d
      join webhook_endpoints w on w.organization_id = d.organization_id and w.id = d.webhook_id
      left join events ev on ev.organization_id = d.organization_id and ev.id = d.event_id`,

    // The dispatcher's two statements per window (src/jobs/dispatcher/queue.ts explains them), as PL/pgSQL so their
    // plans are cached per connection: planned afresh, they cost more than they execute.
    sql`create function webhook_claim_window(p_owner text, p_organization uuid, p_webhook uuid, p_position bigint, p_size integer,
        p_lease interval)
      returns table (url text, secret_ciphertext text, id uuid, sequence bigint, idempotency_key text, body text)
      language plpgsql as $$
      #variable_conflict use_column
      begin
        return query
        with win as (
          select d.id, d.sequence, d.status, d.event_id, d.idempotency_key, d.payload
          from webhook_deliveries d
          where d.organization_id = p_organization and d.webhook_id = p_webhook and d.sequence > p_position
          order by d.sequence
          limit p_size
        ),
        moved as (
          update webhook_endpoints e set
            settled_through = p_position,
            dispatched_through = coalesce((select max(w.sequence) from win w), p_position),
            lease_owner = case when exists (select 1 from win) then e.lease_owner end,
            lease_expires_at = case when exists (select 1 from win) then now() + p_lease end
          where e.organization_id = p_organization and e.id = p_webhook and e.lease_owner = p_owner and e.is_active
          returning e.url, e.secret_ciphertext
        )
        select m.url, m.secret_ciphertext, w.id, w.sequence, w.idempotency_key,
          case when w.status = 'pending' then coalesce(w.payload::text, (
            select webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload) from events ev
            where ev.organization_id = p_organization and ev.id = w.event_id)) end
        from moved m
        left join win w on true
        order by w.sequence;
      end $$`,
    sql`create function webhook_record_outcomes(p_organization uuid, p_id uuid[], p_status text[], p_error text[],
        p_response_status integer[], p_url text[], p_attempted_at timestamptz[])
      returns void language plpgsql as $$
      begin
        -- Not waited for: losing it in a database crash leaves the rows pending inside a claimed window, which the
        -- next claimer records failed "interrupted", never sent again. The claim, which must be durable before any
        -- POST, still waits for its commit.
        perform set_config('synchronous_commit', 'off', true);
        update webhook_deliveries d
        set status = o.status, error = o.error, response_status = o.response_status, url = o.url,
          attempted_at = o.attempted_at, updated_at = now()
        from unnest(p_id, p_status, p_error, p_response_status, p_url, p_attempted_at)
          as o(id, status, error, response_status, url, attempted_at)
        where d.organization_id = p_organization and d.id = o.id;
      end $$`,

    // recordEvents (src/events/outbox.ts explains the steps). PL/pgSQL so both statements keep their plans.
    sql`create function patron_record_events(p_organization uuid[], p_id uuid[], p_name text[], p_payload json[])
      returns integer language plpgsql as $$
      declare
        fanned integer;
      begin
        insert into events (organization_id, id, name, payload)
        select i.organization_id, i.id, i.name, i.payload
        from unnest(p_organization, p_id, p_name, p_payload) with ordinality as i(organization_id, id, name, payload, ord)
        order by i.ord;

        with input as (
          select * from unnest(p_organization, p_id, p_name) with ordinality as i(organization_id, id, name, ord)
        ),
        -- Found by the primary key's organization prefix, the subscription tested on the row: an organization has few
        -- endpoints, and their rows change often (sequences, leases), which a bitmap scan of the GIN index on events
        -- pays for in dead entries until a vacuum.
        targets as (
          select e.organization_id, e.id, e.url, e.events from webhook_endpoints e
          where e.organization_id = any(p_organization) and coalesce(e.is_active and e.events && p_name, false)
          order by e.organization_id, e.id
          for update
        ),
        pairs as (
          select t.organization_id, t.id as webhook_id, t.url, i.id as event_id, i.name,
            row_number() over (partition by t.organization_id, t.id order by i.ord) as n
          from targets t join input i on i.organization_id = t.organization_id and i.name = any(t.events)
        ),
        bumped as (
          update webhook_endpoints w set last_sequence = w.last_sequence + c.n
          from (select organization_id, webhook_id, max(n) as n from pairs group by organization_id, webhook_id) c
          where w.organization_id = c.organization_id and w.id = c.webhook_id
          returning w.organization_id, w.id, w.last_sequence - c.n as base
        ),
        inserted as (
          insert into webhook_deliveries (organization_id, id, webhook_id, sequence, event_id, event_name, idempotency_key, url)
          select p.organization_id,
            encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
              substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid,
            p.webhook_id, b.base + p.n, p.event_id, p.name, p.event_id::text, p.url
          from pairs p
          join bumped b on b.organization_id = p.organization_id and b.id = p.webhook_id
          order by p.organization_id, p.webhook_id, p.n
          returning 1
        )
        select count(*) into fanned from inserted;
        -- Wakes listening dispatchers at commit; a rolled-back change wakes no one.
        if fanned > 0 then
          perform pg_notify('patron_webhook_deliveries', '');
        end if;
        return fanned;
      end $$`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`drop function patron_record_events`,
    sql`drop function webhook_claim_window`,
    sql`drop function webhook_record_outcomes`,
    sql`drop view webhook_delivery_records`,
    sql`update webhook_deliveries d set payload = webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)::json
      from events ev where d.payload is null and ev.organization_id = d.organization_id and ev.id = d.event_id`,
    sql`drop function webhook_envelope`,
    sql`drop index webhook_deliveries_sending_idx`,
    sql`create index webhook_deliveries_due_idx on webhook_deliveries (organization_id, webhook_id, sequence)
      where status in ('pending', 'sending')`,
    sql`create index webhook_deliveries_log_idx on webhook_deliveries (organization_id, webhook_id, created_at desc, id desc)`,
    sql`drop trigger webhook_endpoints_drop_deliveries on webhook_endpoints`,
    sql`drop function webhook_endpoints_drop_deliveries`,
    sql`alter table webhook_deliveries add foreign key (organization_id, webhook_id)
      references webhook_endpoints (organization_id, id) on delete cascade`,
    sql`alter table webhook_deliveries alter column payload set not null`,
    sql`alter table webhook_endpoints drop column dispatched_through, drop column settled_through`,
  ];
  for (const statement of statements) await statement.execute(db);
}
