import { sql, type Kysely } from 'kysely';

/**
 * The dispatcher's per-delivery status write as a PL/pgSQL function. It runs once per delivery per round (group
 * committed across endpoints); as a plain statement, PostgreSQL planned it afresh on every call, and planning cost
 * several times its execution. PL/pgSQL keeps the plan per connection. The logic is the recorder's
 * (src/jobs/dispatcher/recorder.ts explains it); it lives here only so its plan is cached.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function webhook_dispatch_step(
      p_owner text, p_lease interval,
      o_organization uuid[], o_webhook uuid[], o_delivery uuid[], o_status text[], o_error text[], o_response integer[],
      m_organization uuid[], m_webhook uuid[], m_delivery uuid[])
    returns table (delivery_id uuid, delivery_url text, delivery_secret text)
    language plpgsql as $$
    begin
      return query
      with outcome_input as (
        select * from unnest(o_organization, o_webhook, o_delivery, o_status, o_error, o_response)
          as o(organization_id, webhook_id, id, status, error, response_status)
      ),
      mark as (
        select * from unnest(m_organization, m_webhook, m_delivery) as m(organization_id, webhook_id, delivery_id)
      ),
      locked as (
        select e.organization_id, e.id, e.lease_owner from webhook_endpoints e
        where (e.organization_id, e.id) in (
          select i.organization_id, i.webhook_id from outcome_input i union select k.organization_id, k.webhook_id from mark k)
        order by e.organization_id, e.id
        for update
      ),
      outcome as (
        update webhook_deliveries d
        set status = o.status, error = o.error, response_status = o.response_status, updated_at = now()
        from outcome_input o join locked l on l.organization_id = o.organization_id and l.id = o.webhook_id
        where d.organization_id = o.organization_id and d.id = o.id
      ),
      leased as (
        update webhook_endpoints e set lease_expires_at = now() + p_lease
        from locked l
        where e.organization_id = l.organization_id and e.id = l.id and l.lease_owner = p_owner
          and (l.organization_id, l.id) in (select k.organization_id, k.webhook_id from mark k)
        returning e.organization_id, e.id, e.url, e.secret_ciphertext, e.is_active
      )
      update webhook_deliveries d set status = 'sending', url = l.url, attempted_at = now(), updated_at = now()
      from mark m join leased l on l.organization_id = m.organization_id and l.id = m.webhook_id
      where l.is_active and d.organization_id = m.organization_id and d.id = m.delivery_id
        and d.webhook_id = m.webhook_id and d.status = 'pending'
      returning d.id, l.url, l.secret_ciphertext;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function webhook_dispatch_step`.execute(db);
}
