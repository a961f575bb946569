import { PlaceholderPage } from '../PlaceholderPage';

export default function StorePage() {
  return (
    <PlaceholderPage
      title="Store data"
      plans="Products with their variants and tags, orders with their items, filters and quick filters."
    />
  );
}
