import { sql, type Kysely } from 'kysely';

/**
 * Test mode (docs/api.md#test-mode): every organization gets a test twin, a row of organizations of its own whose
 * `live_organization_id` names the live organization it belongs to (null for live organizations). Being a tenant of
 * its own, the twin's rows are kept apart by the organization_id that leads every key, so no query needs a mode
 * filter. Deleting the live organization row deletes the twin's row (`patron org delete` deletes both tenants' rows
 * first).
 *
 * - every existing organization gets its twin now, with the live one's name, time zone, plan and settings, and the
 *   default loyalty program every organization starts with;
 * - a dashboard session may act in test mode (`test_mode`), on the twin of its user's organization;
 * - an export job's record says whether it exported test data (`bulk_jobs.livemode`);
 * - the envelope's `livemode` comes from the organization: webhook_envelope takes it as a fifth argument, and the
 *   delivery view and the dispatcher's window read it from the delivery's organization, so GET /events/{id} and a
 *   delivery of the event stay the same bytes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table organizations add column live_organization_id uuid unique references organizations (id) on delete cascade`,
    sql`insert into organizations (id, name, timezone, api_requests_per_minute, loyalty_events_per_minute,
        loyalty_stamps_per_minute, cascade_delete_reviews, review_summary_min_reviews, expiring_soon_days,
        live_organization_id)
      select gen_random_uuid(), name, timezone, api_requests_per_minute, loyalty_events_per_minute,
        loyalty_stamps_per_minute, cascade_delete_reviews, review_summary_min_reviews, expiring_soon_days, id
      from organizations where live_organization_id is null`,
    sql`insert into loyalty_programs (organization_id, id, name)
      select id, gen_random_uuid(), 'Loyalty program' from organizations where live_organization_id is not null`,
    sql`alter table sessions add column test_mode boolean not null default false`,
    // An export job's record says which data it exported; every job so far is live.
    sql`alter table bulk_jobs add column livemode boolean not null default true`,

    sql`create function webhook_envelope(p_name text, p_created_at timestamptz, p_id uuid, p_payload json,
        p_livemode boolean)
      returns text language sql stable parallel safe as $$
        select '{"id":"' || p_id::text
          || '","event":' || to_json(p_name)::text
          || ',"timestamp":"' || to_char(p_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '","idempotencyKey":"' || p_id::text
          || '","livemode":' || case when p_livemode then 'true' else 'false' end
          || ',"data":' || p_payload::text || '}'
      $$`,
    sql`create or replace view webhook_delivery_records as
      select d.organization_id, d.id, d.webhook_id, d.sequence, d.event_id, d.event_name, d.idempotency_key, d.url,
        coalesce(d.payload, webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload,
          (select o.live_organization_id is null from organizations o where o.id = d.organization_id))::json) as payload,
        d.status, d.error, d.response_status, d.attempted_at, d.created_at, d.updated_at, d.requested
      from webhook_deliveries d
      left join events ev on ev.organization_id = d.organization_id and ev.id = d.event_id`,
    claimWindow(sql`webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload,
      (select o.live_organization_id is null from organizations o where o.id = p_organization))`),
    sql`drop function webhook_envelope(text, timestamptz, uuid, json)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create function webhook_envelope(p_name text, p_created_at timestamptz, p_id uuid, p_payload json)
      returns text language sql stable parallel safe as $$
        select '{"id":"' || p_id::text
          || '","event":' || to_json(p_name)::text
          || ',"timestamp":"' || to_char(p_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '","idempotencyKey":"' || p_id::text
          || '","livemode":true,"data":' || p_payload::text || '}'
      $$`,
    claimWindow(sql`webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)`),
    sql`create or replace view webhook_delivery_records as
      select d.organization_id, d.id, d.webhook_id, d.sequence, d.event_id, d.event_name, d.idempotency_key, d.url,
        coalesce(d.payload, webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)::json) as payload,
        d.status, d.error, d.response_status, d.attempted_at, d.created_at, d.updated_at, d.requested
      from webhook_deliveries d
      left join events ev on ev.organization_id = d.organization_id and ev.id = d.event_id`,
    sql`drop function webhook_envelope(text, timestamptz, uuid, json, boolean)`,
    sql`alter table sessions drop column test_mode`,
    sql`alter table bulk_jobs drop column livemode`,
    sql`delete from organizations where live_organization_id is not null`,
    sql`alter table organizations drop column live_organization_id`,
  ];
  for (const statement of statements) await statement.execute(db);
}

/** webhook_claim_window exactly as migration 0023 made it, but for the envelope's expression. */
function claimWindow(envelope: ReturnType<typeof sql>) {
  return sql`create or replace function webhook_claim_window(p_owner text, p_organization uuid, p_webhook uuid,
      p_position bigint, p_size integer, p_lease interval)
    returns table (url text, secret_ciphertext text, previous_secret_ciphertext text, id uuid, sequence bigint,
      idempotency_key text, body text)
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
        returning e.url, e.secret_ciphertext,
          case when e.previous_secret_expires_at > now() then e.previous_secret_ciphertext end as previous_secret_ciphertext
      )
      select m.url, m.secret_ciphertext, m.previous_secret_ciphertext, w.id, w.sequence, w.idempotency_key,
        case when w.status = 'pending' then coalesce(w.payload::text, (
          select ${envelope} from events ev
          where ev.organization_id = p_organization and ev.id = w.event_id)) end
      from moved m
      left join win w on true
      order by w.sequence;
    end $$`;
}
