/**
 * The aspects shoppers write about, with the words that name them in each language the lexicon knows. A term is
 * a lowercase word or phrase (a space matches spaces or a hyphen); `*` at either end stands for more letters, which
 * is how German compounds are caught (Trage*komfort*, Schuh*größe*).
 */
interface ThemeLexicon {
  label: string;
  terms: Record<string, readonly string[]>;
  /**
   * Words that praise or fault this aspect in particular, whatever general sentiment says: "runs small" faults a
   * size, "quickly" praises a delivery but not a sole that "wore down quickly".
   */
  praise?: Record<string, readonly string[]>;
  complaints?: Record<string, readonly string[]>;
}

export const THEME_LEXICON: readonly ThemeLexicon[] = [
  {
    label: 'fit',
    terms: {
      en: [
        'fit',
        'fits',
        'fitted',
        'fitting',
        'snug',
        'snugly',
        'baggy',
        'roomy',
        'narrow',
        'too short',
        'too long',
        'loose fitting',
        'tight fitting',
        'form fitting',
      ],
      de: [
        '*passform',
        'passt',
        'passen',
        'passte',
        'sitzt',
        'sitzen',
        'saß',
        'geschnitten',
        '*schnitt',
        'zu eng',
        'zu weit',
        'zu kurz',
        'zu lang',
      ],
    },
    praise: {
      en: [
        'fits perfectly',
        'fits well',
        'fits great',
        'fits beautifully',
        'fits snugly',
        'perfect fit',
        'great fit',
        'good fit',
        'true to size',
      ],
      de: ['passt perfekt', 'passt gut', 'sitzt perfekt', 'sitzt gut', 'perfekte passform', 'gute passform'],
    },
    complaints: {
      en: [
        'too short',
        'too long',
        'too tight',
        'too loose',
        'too narrow',
        'too wide',
        'baggy',
        'pinch',
        'pinches',
        'slides around',
        'hangs like',
      ],
      de: ['zu kurz', 'zu lang', 'zu eng', 'zu weit', 'zu schmal', 'rutscht', 'spannt', 'drückt'],
    },
  },
  {
    label: 'size',
    terms: {
      en: [
        'size',
        'sizes',
        'sized',
        'sizing',
        'runs small',
        'runs large',
        'runs big',
        'too small',
        'too big',
        'too large',
        'size up',
        'size down',
      ],
      de: [
        '*größe',
        '*größen',
        'zu klein',
        'zu groß',
        'fällt klein',
        'fällt groß',
        'fallen klein',
        'fallen groß',
        'nummer größer',
        'nummer kleiner',
      ],
    },
    praise: {
      en: ['true to size', 'as expected'],
      de: ['größengerecht', 'passt genau', 'passt perfekt', 'wie erwartet'],
    },
    complaints: {
      en: [
        'runs small',
        'run small',
        'runs large',
        'run large',
        'runs big',
        'run big',
        'too small',
        'too big',
        'too large',
        'size up',
        'sized up',
        'size down',
        'smaller than',
        'bigger than',
        'larger than',
        'shrank',
        'shrunk',
      ],
      de: [
        'zu klein',
        'zu groß',
        'fällt klein',
        'fällt groß',
        'fallen klein',
        'fallen groß',
        'nummer größer',
        'nummer kleiner',
        'kleiner als',
        'größer als',
        'eingelaufen',
      ],
    },
  },
  {
    label: 'quality',
    terms: {
      en: [
        'quality',
        'well made',
        'badly made',
        'poorly made',
        'cheaply made',
        'craftsmanship',
        'stitching',
        'seam',
        'seams',
        'durable',
        'durability',
        'sturdy',
        'robust',
        'flimsy',
        'fell apart',
        'falling apart',
        'came apart',
        'holding up',
        'held up',
        'holds up',
        'material',
        'materials',
        'fabric',
        'ripped',
        'torn',
        'frayed',
        'fraying',
        'pilling',
        'pills',
        'pilled',
        'stretched out',
        'peeling',
        'scratch',
        'scratches',
        'scratched',
        'stopped working',
        'stopped charging',
        'died',
        'dead',
        'defect',
        'defects',
        'defective',
        'lasted',
        'wore down',
        'wore out',
        'worn out',
        'wears out',
      ],
      de: [
        '*qualität',
        'verarbeitung',
        '*verarbeitet',
        'material',
        'materialien',
        'stoff',
        'naht',
        'nähte',
        'robust',
        'stabil',
        'hochwertig',
        'minderwertig',
        'langlebig',
        'kaputt',
        'gerissen',
        'löst sich',
        'lösen sich',
        'verarbeitungsfehler',
      ],
    },
    praise: {
      en: ['well made', 'holding up', 'holds up', 'held up', 'durable', 'sturdy', 'solid'],
      de: ['hochwertig*', 'robust', 'langlebig', 'stabil', 'gut verarbeitet', 'sauber verarbeitet'],
    },
    complaints: {
      en: [
        'fell apart',
        'falling apart',
        'came apart',
        'wore down',
        'wore out',
        'worn out',
        'wears out',
        'peeling',
        'ripped',
        'torn',
        'frayed',
        'fraying',
        'pilling',
        'defect',
        'defects',
        'defective',
        'flimsy',
        'cheaply made',
        'poorly made',
        'badly made',
        'broke',
        'broken',
        'cracked',
        'separated',
        'scratches easily',
        'scratched',
        'stopped working',
        'stopped charging',
        'died',
        'dead',
        'expected better',
        'expected more',
        'expected much better',
      ],
      de: [
        'kaputt',
        'gerissen',
        'löst sich',
        'lösen sich',
        'gelöst',
        'minderwertig',
        'billig',
        'fusselt',
        'pillt',
        'ausgeleiert',
        'undicht',
        '*fehler',
      ],
    },
  },
  {
    label: 'comfort',
    terms: {
      en: [
        'comfortable',
        'comfortably',
        'comfy',
        'comfort',
        'uncomfortable',
        'cushioning',
        'cushioned',
        'itchy',
        'scratchy',
        'soft',
        'softer',
        'softest',
        'blister',
        'blisters',
        'rubs',
        'rubbing',
        'hurt',
        'hurts',
        'painful',
        'pinch',
        'pinches',
        'pinching',
        'chafe',
        'chafes',
        'chafing',
        'breathable',
      ],
      de: [
        'bequem',
        'bequemer',
        'unbequem',
        '*komfort',
        'weich',
        'kratzt',
        'kratzig',
        'drückt',
        'scheuert',
        'blasen',
        'atmungsaktiv',
        'schwitzt',
        'schwitzen',
      ],
    },
  },
  {
    label: 'price',
    terms: {
      en: [
        'price',
        'prices',
        'priced',
        'pricey',
        'pricy',
        'overpriced',
        'expensive',
        'inexpensive',
        'affordable',
        'value',
        'money',
        'budget',
        'worth it',
        'worth every penny',
        'bargain',
        'cost',
        'costs',
        'on sale',
        'paid',
      ],
      de: [
        '*preis',
        '*preise',
        'preis*',
        'teuer',
        'teurer',
        'überteuert',
        'günstig',
        'preiswert',
        'geld',
        'kostet',
        'gekostet',
      ],
    },
    praise: {
      en: ['worth every penny', 'worth it', 'good value', 'great value', 'bargain', 'affordable', 'on sale', 'fair'],
      de: ['günstig', 'preiswert', 'fair', 'fairer', 'fairen', 'angemessen', 'lohnt sich', 'jeden cent wert'],
    },
    complaints: {
      en: [
        'overpriced',
        'expensive',
        'pricey',
        'pricy',
        'not worth',
        'expected better',
        'expected more',
        'expected much better',
        'expected fewer',
        'waste of money',
      ],
      de: ['teuer', 'teurer', 'überteuert', 'nicht wert', 'mehr erwartet', 'besseres erwartet'],
    },
  },
  {
    label: 'delivery',
    terms: {
      en: [
        'delivery',
        'deliveries',
        'delivered',
        'shipping',
        'shipped',
        'shipment',
        'arrived',
        'arrive',
        'arrives',
        'arrival',
        'package',
        'packaging',
        'packaged',
        'parcel',
        'courier',
        'dispatch',
        'dispatched',
        'postage',
        'tracking',
        'in the mail',
      ],
      de: [
        '*lieferung',
        'geliefert',
        'liefer*',
        '*versand',
        'versand*',
        'verschickt',
        'versendet',
        'angekommen',
        'ankam',
        'paket',
        '*verpackung',
        '*verpackt',
        'zustellung',
        'zugestellt',
        'post',
      ],
    },
    praise: {
      en: [
        'fast',
        'quick',
        'quickly',
        'promptly',
        'speedy',
        'on time',
        'next day',
        'early',
        'well packaged',
        'well packed',
        'two days',
        '2 days',
        'perfect condition',
      ],
      de: [
        'schnell',
        'schnelle',
        'zügig',
        'pünktlich',
        'gut verpackt',
        'sicher verpackt',
        'nächsten tag',
        'zwei tagen',
        '2 tagen',
        'einwandfrei',
      ],
    },
    complaints: {
      en: [
        'slow',
        'late',
        'delayed',
        'weeks',
        'never arrived',
        'broken',
        'damaged',
        'chipped',
        'cracked',
        'smashed',
        'crushed',
        'lost',
        'missing',
        'shattered',
        'in pieces',
      ],
      de: [
        'langsam',
        'verspätet',
        'verspätung',
        'wochen',
        'beschädigt',
        'kaputt',
        'zerbrochen',
        'verloren',
        'nie angekommen',
        'scherben',
      ],
    },
  },
  {
    label: 'customer service',
    terms: {
      en: [
        'customer service',
        'customer support',
        'customer care',
        'support team',
        'service team',
        'service',
        'seller',
        'staff',
        'replied',
        'responded',
        'got back to me',
        'help desk',
        'helpdesk',
        'contacted',
        'tech support',
        'contacted support',
        'support told',
        'support said',
        'support asked',
        'support took',
        'support replied',
      ],
      de: [
        '*kundenservice',
        'kundendienst',
        'service',
        'support',
        'händler',
        'verkäufer',
        'geantwortet',
        'kontaktiert',
      ],
    },
  },
  {
    label: 'returns',
    terms: {
      en: [
        'return',
        'returns',
        'returned',
        'returning',
        'exchange',
        'exchanged',
        'refund',
        'refunded',
        'send back',
        'sent back',
        'sending back',
        'send them back',
        'sent them back',
        'send it back',
        'sent it back',
      ],
      de: [
        'rücksendung',
        '*retoure',
        'retourniert',
        'zurückgeschickt',
        'zurückgesendet',
        'umtausch',
        'umgetauscht',
        'erstattung',
        'erstattet',
      ],
    },
    praise: {
      en: ['quick', 'quickly', 'easy', 'free', 'hassle free', 'without any trouble', 'no questions asked', 'smooth'],
      de: ['schnell', 'problemlos', 'unkompliziert', 'kostenlos', 'reibungslos'],
    },
    complaints: {
      en: ['still waiting', 'refused', 'charged', 'fee', 'hassle', 'no refund'],
      de: ['warte immer noch', 'abgelehnt', 'gebühr', 'keine erstattung'],
    },
  },
  {
    label: 'design',
    terms: {
      en: [
        'colour',
        'colours',
        'color',
        'colors',
        'design',
        'style',
        'stylish',
        'looks',
        'the look',
        'appearance',
        'glaze',
        'pattern',
        'they look',
        'it looks',
        'look great',
        'look good',
        'look lovely',
        'look nice',
        'look expensive',
        'look cheap',
      ],
      de: ['*farbe', '*farben', 'design', 'optik', 'aussehen', 'schick', 'stylisch'],
    },
    complaints: {
      en: [
        'differs',
        'different from the photos',
        'darker than',
        'lighter than',
        'than in the photos',
        'than pictured',
        'faded',
        'look cheap',
        'looks worn',
        'looks cheap',
      ],
      de: ['anders als auf', 'dunkler als', 'heller als', 'als auf den fotos', 'verblasst', 'sieht billig'],
    },
  },
  {
    label: 'battery',
    terms: {
      en: ['battery', 'batteries', 'charge', 'charges', 'charging', 'charger', 'recharge'],
      de: ['akku', '*akku', 'akkulaufzeit', 'aufladen', 'ladezeit'],
    },
    praise: {
      en: [
        'lasts all day',
        'long battery',
        'charge quickly',
        'charges quickly',
        'charge fast',
        'charges fast',
        'once a week',
      ],
      de: ['hält lange', 'lädt schnell', 'ewig'],
    },
    complaints: {
      en: [
        'at best',
        'barely',
        'only lasts',
        'dies',
        'died',
        'drains',
        'hours to charge',
        'degraded',
        'stopped charging',
        'could be better',
      ],
      de: ['hält kaum', 'nur noch', 'leer', 'lädt nicht', 'lädt langsam'],
    },
  },
];

const LETTER = '[\\p{L}\\p{N}]';

function termPattern(term: string): string {
  const prefix = term.startsWith('*') ? `${LETTER}*` : '';
  const suffix = term.endsWith('*') ? `${LETTER}*` : '';
  const core = term
    .replace(/^\*|\*$/g, '')
    .split(' ')
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s-]+');
  return `${prefix}${core}${suffix}`;
}

function compile(terms: readonly string[], flags: string): RegExp {
  return new RegExp(`(?<!${LETTER})(?:${terms.map(termPattern).join('|')})(?!${LETTER})`, flags);
}

export const LEXICON_LANGUAGES: readonly string[] = [
  ...new Set(THEME_LEXICON.flatMap((theme) => Object.keys(theme.terms))),
].sort();

interface CompiledTerms {
  byLanguage: Map<string, RegExp>;
  any: RegExp | undefined;
}

function compileAll(terms: Record<string, readonly string[]> | undefined, flags: string): CompiledTerms {
  const entries = Object.entries(terms ?? {});
  return {
    byLanguage: new Map(entries.map(([language, list]) => [language, compile(list, flags)])),
    any: entries.length
      ? compile(
          entries.flatMap(([, list]) => list),
          flags,
        )
      : undefined,
  };
}

/** Text in a language the lexicon knows is matched with that language's terms, any other text with all of them. */
const pick = (compiled: CompiledTerms, language: string | null) =>
  (language && compiled.byLanguage.get(language)) || compiled.any;

const compiled = THEME_LEXICON.map((theme) => ({
  label: theme.label,
  terms: compileAll(theme.terms, 'gu'),
  praise: compileAll(theme.praise, 'u'),
  complaints: compileAll(theme.complaints, 'u'),
}));

export interface ThemeMention {
  label: string;
  /** Where each mention starts in the lowercased text. */
  indices: number[];
  /** +1 when the clause praises this aspect in its own words, -1 when it faults it, 0 when neither or both. */
  cue(clause: string): number;
}

/** The themes a lowercased text mentions, with every place it mentions them. */
export function findThemes(lowercased: string, language: string | null): ThemeMention[] {
  const mentions: ThemeMention[] = [];
  for (const theme of compiled) {
    const pattern = pick(theme.terms, language)!;
    const indices = [...lowercased.matchAll(pattern)].map((match) => match.index);
    if (indices.length === 0) continue;
    const praise = pick(theme.praise, language);
    const complaints = pick(theme.complaints, language);
    mentions.push({
      label: theme.label,
      indices,
      cue: (clause) => (praise?.test(clause) ? 1 : 0) - (complaints?.test(clause) ? 1 : 0),
    });
  }
  return mentions;
}
