import { PlaceholderPage } from '../PlaceholderPage';

export default function ImportsExportsPage() {
  return (
    <PlaceholderPage title="Imports & exports" plans="CSV imports with their progress, and exports to download." />
  );
}
