import type { Session } from '../api/contract';
import { SECTIONS } from './sections';

/** A page of the dashboard that "Find anything" can jump to: a section, or one of its tabs. */
export interface Place {
  /** What the palette shows: "Customers", "Store data › Orders". */
  label: string;
  /** Where it goes, under /dashboard. */
  to: string;
  /** Other words a merchant may type for it. */
  keywords: readonly string[];
}

interface Tab {
  section: string;
  label: string;
  to: string;
  keywords?: readonly string[];
  /** Shown only when the session may open it (as the page itself decides). */
  shown?: (session: Session, can: (permission: string) => boolean) => boolean;
}

/**
 * The tabs each page has, with the address that opens them (the pages keep their tab in the URL: `?tab=` or a path).
 * Kept beside the pages' own lists; a tab missing here is still one click from its section.
 */
const TABS: readonly Tab[] = [
  { section: 'customers', label: 'Members', to: '/customers?tab=members', shown: (_, can) => can('loyalty:read') },
  { section: 'customers', label: 'Rewards', to: '/customers?tab=rewards', shown: (_, can) => can('loyalty:read') },
  { section: 'loyalty', label: 'Programs', to: '/loyalty?tab=programs' },
  { section: 'loyalty', label: 'Tiers', to: '/loyalty?tab=tiers' },
  { section: 'loyalty', label: 'Rules', to: '/loyalty?tab=rules', keywords: ['earning', 'points'] },
  { section: 'reviews', label: 'Summaries', to: '/reviews?tab=summaries' },
  { section: 'reviews', label: 'Questions', to: '/reviews?tab=questions', keywords: ['answers'] },
  { section: 'reviews', label: 'Surveys', to: '/reviews?tab=surveys', keywords: ['flows'] },
  { section: 'mail', label: 'Templates', to: '/mail?tab=templates', keywords: ['email'] },
  { section: 'mail', label: 'Mail log', to: '/mail?tab=log', keywords: ['email', 'sent'] },
  { section: 'store', label: 'Products', to: '/store/products', keywords: ['variants', 'catalog'] },
  { section: 'store', label: 'Orders', to: '/store/orders', keywords: ['purchases', 'sales'] },
  { section: 'webhooks', label: 'Events', to: '/webhooks?tab=events', shown: (_, can) => can('events:read') },
  { section: 'imports-exports', label: 'Imports', to: '/imports-exports?tab=imports', keywords: ['upload', 'csv'] },
  { section: 'imports-exports', label: 'Exports', to: '/imports-exports?tab=exports', keywords: ['download', 'csv'] },
  { section: 'settings', label: 'Organization', to: '/settings?tab=organization', keywords: ['time zone'] },
  { section: 'settings', label: 'Users', to: '/settings?tab=users', shown: (session) => session.user.role === 'owner' },
  {
    section: 'settings',
    label: 'API keys',
    to: '/settings?tab=keys',
    keywords: ['secret', 'token'],
    shown: (session) => session.user.role === 'owner' || session.user.role === 'admin',
  },
];

/** Every page the session may open, in the navigation's order, each section followed by its tabs. */
export function placesFor(session: Session): Place[] {
  const can = (permission: string) => session.permissions.includes('all') || session.permissions.includes(permission);
  const places: Place[] = [];
  for (const section of SECTIONS) {
    if (section.permission && !can(section.permission)) continue;
    places.push({ label: section.label, to: `/${section.path}`, keywords: [section.path] });
    for (const tab of TABS) {
      if (tab.section !== section.path || (tab.shown && !tab.shown(session, can))) continue;
      places.push({ label: `${section.label} › ${tab.label}`, to: tab.to, keywords: tab.keywords ?? [] });
    }
  }
  return places;
}

/**
 * The places whose name (or keywords) hold every word of `query`, case-insensitively; all of them for an empty query.
 * A section whose own name matches comes before a tab that matches only through its section's name.
 */
export function matchPlaces(places: readonly Place[], query: string): Place[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...places];
  const scored = places
    .map((place) => {
      const own = place.label.split(' › ').at(-1)!.toLowerCase();
      const text = `${place.label} ${place.keywords.join(' ')}`.toLowerCase();
      if (!words.every((word) => text.includes(word))) return null;
      const score = own.startsWith(words[0]!) ? 0 : words.every((word) => own.includes(word)) ? 1 : 2;
      return { place, score };
    })
    .filter((entry) => entry !== null);
  return scored.sort((a, b) => a.score - b.score).map((entry) => entry.place);
}
