import { sql, type Kysely } from 'kysely';

/**
 * The Events API (docs/api.md#events-api): every recorded event is listed and read by the organization, so
 *
 * - events carry the id of the record they are about (`object_id`, from the payload's `id`, null where the payload
 *   has none), filled by patron_record_events from the recorded record, and two indexes lead with the organization: (object_id, id) for the
 *   objectId filter and (name, id) for the type filter, both walked newest first by id;
 * - the envelope gains `id` (the event's id) and `livemode` (true: every organization is live until test mode), so
 *   GET /events/{id} and a delivery of the event are the same bytes (webhook_envelope composes both);
 * - a delivery sent by hand says so (`requested`): POST /events/{id}/deliver, a resend or a test ping.
 *
 * Envelopes stored before this (the by-hand deliveries, whose payload is kept) stay as they were sent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table events add column object_id uuid`,
    // Events recorded before: every record's first field is its id. Read from the text, not with ->>, which fails on
    // a payload holding an escaped NUL anywhere.
    sql`update events set object_id = substring(payload::text from '^[{]"id":"([0-9a-fA-F-]{36})"')::uuid
      where payload::text ~ '^[{]"id":"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"'`,
    sql`create index events_object_idx on events (organization_id, object_id, id) where object_id is not null`,
    sql`create index events_name_idx on events (organization_id, name, id)`,
    sql`alter table webhook_deliveries add column requested boolean not null default false`,
    sql`create or replace function webhook_envelope(p_name text, p_created_at timestamptz, p_id uuid, p_payload json)
      returns text language sql stable parallel safe as $$
        select '{"id":"' || p_id::text
          || '","event":' || to_json(p_name)::text
          || ',"timestamp":"' || to_char(p_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '","idempotencyKey":"' || p_id::text
          || '","livemode":true,"data":' || p_payload::text || '}'
      $$`,
    // A view may gain columns at its end only.
    sql`create or replace view webhook_delivery_records as
      select d.organization_id, d.id, d.webhook_id, d.sequence, d.event_id, d.event_name, d.idempotency_key, d.url,
        coalesce(d.payload, webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)::json) as payload,
        d.status, d.error, d.response_status, d.attempted_at, d.created_at, d.updated_at, d.requested
      from webhook_deliveries d
      left join events ev on ev.organization_id = d.organization_id and ev.id = d.event_id`,
    // recordEvents (src/events/outbox.ts explains the steps): as in 0011, and the event's object id, which the
    // recorder reads from the record it serializes (reading it back out of the json would reparse every payload).
    sql`drop function patron_record_events(uuid[], uuid[], text[], json[])`,
    sql`create function patron_record_events(p_organization uuid[], p_id uuid[], p_name text[], p_payload json[],
        p_object_id uuid[])
      returns integer language plpgsql as $$
      declare
        fanned integer;
      begin
        insert into events (organization_id, id, name, payload, object_id)
        select i.organization_id, i.id, i.name, i.payload, i.object_id
        from unnest(p_organization, p_id, p_name, p_payload, p_object_id)
          with ordinality as i(organization_id, id, name, payload, object_id, ord)
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
    sql`drop function patron_record_events(uuid[], uuid[], text[], json[], uuid[])`,
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
    sql`drop view webhook_delivery_records`,
    sql`create view webhook_delivery_records as
      select d.organization_id, d.id, d.webhook_id, d.sequence, d.event_id, d.event_name, d.idempotency_key, d.url,
        coalesce(d.payload, webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)::json) as payload,
        d.status, d.error, d.response_status, d.attempted_at, d.created_at, d.updated_at
      from webhook_deliveries d
      left join events ev on ev.organization_id = d.organization_id and ev.id = d.event_id`,
    sql`create or replace function webhook_envelope(p_name text, p_created_at timestamptz, p_id uuid, p_payload json)
      returns text language sql stable parallel safe as $$
        select '{"event":' || to_json(p_name)::text
          || ',"timestamp":"' || to_char(p_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '","idempotencyKey":"' || p_id::text
          || '","data":' || p_payload::text || '}'
      $$`,
    sql`alter table webhook_deliveries drop column requested`,
    sql`drop index events_name_idx`,
    sql`drop index events_object_idx`,
    sql`alter table events drop column object_id`,
  ];
  for (const statement of statements) await statement.execute(db);
}
