import { sql, type Kysely } from 'kysely';

/**
 * Rotating an endpoint's secret (docs/api.md#rotating-a-secret): the secret it replaced keeps signing deliveries for
 * 24 hours beside the new one. Both columns are set together by a rotation and cleared together by a PUT that sets or
 * removes the secret.
 *
 * The dispatcher's two statements (webhook_claim_window from 0011, webhook_start_delivery from 0020) also answer the
 * previous secret, and only while it is still valid, so the 24 hours are measured by the database's clock and a
 * window re-keys when the previous secret expires in the middle of it. Their behaviour is otherwise exactly as
 * before. A function's result columns cannot change with `create or replace`, so each is dropped and created again;
 * the migration runs in one transaction, so no caller sees it missing. A dispatcher of the previous version still
 * running must be restarted: its prepared statement expects the old columns (PostgreSQL refuses it once they change).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table webhook_endpoints
      add column previous_secret_ciphertext text,
      add column previous_secret_expires_at timestamptz,
      add constraint webhook_endpoints_previous_secret_check
        check ((previous_secret_ciphertext is null) = (previous_secret_expires_at is null))`,

    sql`drop function webhook_claim_window`,
    sql`create function webhook_claim_window(p_owner text, p_organization uuid, p_webhook uuid, p_position bigint, p_size integer,
        p_lease interval)
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
            select webhook_envelope(ev.name, ev.created_at, ev.id, ev.payload) from events ev
            where ev.organization_id = p_organization and ev.id = w.event_id)) end
        from moved m
        left join win w on true
        order by w.sequence;
      end $$`,

    sql`drop function webhook_start_delivery`,
    sql`create function webhook_start_delivery(p_owner text, p_organization uuid, p_webhook uuid, p_id uuid,
        p_attempted_at timestamptz, p_done_id uuid, p_done_status text, p_done_error text,
        p_done_response_status integer, p_done_url text, p_done_attempted_at timestamptz)
      returns table (url text, secret_ciphertext text, previous_secret_ciphertext text)
      language plpgsql as $$
      #variable_conflict use_column
      declare
        v_url text;
        v_secret text;
        v_previous text;
      begin
        if p_done_id is not null then
          update webhook_deliveries d
          set status = p_done_status, error = p_done_error, response_status = p_done_response_status,
            url = p_done_url, attempted_at = p_done_attempted_at, updated_at = now()
          where d.organization_id = p_organization and d.id = p_done_id;
        end if;

        select e.url, e.secret_ciphertext,
          case when e.previous_secret_expires_at > now() then e.previous_secret_ciphertext end
        into v_url, v_secret, v_previous from webhook_endpoints e
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
        previous_secret_ciphertext := v_previous;
        return next;
      end $$`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`drop function webhook_claim_window`,
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

    sql`drop function webhook_start_delivery`,
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

    sql`alter table webhook_endpoints drop constraint webhook_endpoints_previous_secret_check,
      drop column previous_secret_expires_at, drop column previous_secret_ciphertext`,
  ];
  for (const statement of statements) await statement.execute(db);
}
