import { PlaceholderPage } from '../PlaceholderPage';

export default function WebhooksPage() {
  return <PlaceholderPage title="Webhooks" plans="Webhook endpoints, their events and the delivery log." />;
}
