import { PlaceholderPage } from '../PlaceholderPage';

export default function CustomersPage() {
  return (
    <PlaceholderPage
      title="Customers"
      plans="Customers and members: search, orders, membership and activity; adjust points, issue, revoke and redeem rewards."
    />
  );
}
