import { sql, type Kysely } from 'kysely';

/**
 * A delivery is marked `sending` just before its POST leaves (docs/api.md#crashes-and-interrupted-deliveries), so a
 * dispatcher that dies leaves at most the delivery it was sending per endpoint without an outcome; the rest of its
 * window is still `pending` and is sent by the next dispatcher, in sequence order.
 *
 * webhook_start_delivery is the one statement before each POST: it records the outcome of the endpoint's previous
 * POST, checks that the endpoint is still active and leased to the caller (so a PUT or DELETE applies to the next
 * POST, with the URL and secret it returns), and marks the delivery `sending` if it is still `pending` (so two
 * dispatchers can never both send it). It commits before the POST, durably: a mark lost in a crash would let the
 * delivery be sent twice.
 *
 * The delivery log shows each row's own status: a delivery inside a claimed window is `pending` until its POST
 * is about to start.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create function webhook_start_delivery(p_owner text, p_organization uuid, p_webhook uuid, p_id uuid,
        p_attempted_at timestamptz, p_done_id uuid, p_done_status text, p_done_error text,
        p_done_response_status integer, p_done_url text, p_done_attempted_at timestamptz)
      returns table (url text, secret_ciphertext text)
      language plpgsql as $$
      #variable_conflict use_column
      declare
        v_url text;
        v_secret text;
      begin
        if p_done_id is not null then
          update webhook_deliveries d
          set status = p_done_status, error = p_done_error, response_status = p_done_response_status,
            url = p_done_url, attempted_at = p_done_attempted_at, updated_at = now()
          where d.organization_id = p_organization and d.id = p_done_id;
        end if;

        select e.url, e.secret_ciphertext into v_url, v_secret from webhook_endpoints e
        where e.organization_id = p_organization and e.id = p_webhook and e.lease_owner = p_owner and e.is_active;
        if not found then
          return;
        end if;

        update webhook_deliveries d
        set status = 'sending', url = v_url, attempted_at = p_attempted_at, updated_at = now()
        where d.organization_id = p_organization and d.id = p_id and d.status = 'pending';
        if not found then
          return;
        end if;

        url := v_url;
        secret_ciphertext := v_secret;
        return next;
      end $$`,
    sql`create or replace view webhook_delivery_records as
      select d.organization_id, d.id, d.webhook_id, d.sequence, d.event_id, d.event_name, d.idempotency_key, d.url,
        coalesce(d.payload, webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)::json) as payload,
        d.status, d.error, d.response_status, d.attempted_at, d.created_at, d.updated_at
      from webhook_deliveries d
      left join events ev on ev.organization_id = d.organization_id and ev.id = d.event_id`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create or replace view webhook_delivery_records as
      select d.organization_id, d.id, d.webhook_id, d.sequence, d.event_id, d.event_name, d.idempotency_key, d.url,
        coalesce(d.payload, webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload)::json) as payload,
        case when d.status = 'pending' and d.sequence <= w.dispatched_through then 'sending' else d.status end as status,
        d.error, d.response_status, d.attempted_at, d.created_at, d.updated_at
      from webhook_deliveries d
      join webhook_endpoints w on w.organization_id = d.organization_id and w.id = d.webhook_id
      left join events ev on ev.organization_id = d.organization_id and ev.id = d.event_id`,
    sql`drop function webhook_start_delivery`,
  ];
  for (const statement of statements) await statement.execute(db);
}
