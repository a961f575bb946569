import { PlaceholderPage } from '../PlaceholderPage';

export default function LoyaltyPage() {
  return <PlaceholderPage title="Loyalty" plans="Loyalty programs, tiers and rules." />;
}
