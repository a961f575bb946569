import stopwordLists from 'stopword';

/** ISO 639-1 → the stopword package's list names (ISO 639-3). */
const STOPWORD_LISTS: Record<string, string> = {
  en: 'eng',
  de: 'deu',
  fr: 'fra',
  es: 'spa',
  it: 'ita',
  nl: 'nld',
  pt: 'por',
  sv: 'swe',
  da: 'dan',
  nb: 'nob',
  no: 'nob',
  fi: 'fin',
  pl: 'pol',
  cs: 'ces',
  sk: 'slk',
  hu: 'hun',
  ro: 'ron',
  tr: 'tur',
  ru: 'rus',
  uk: 'ukr',
  el: 'ell',
  ca: 'cat',
};
const stopwordCache = new Map<string, ReadonlySet<string>>();

export function stopwords(language: string): ReadonlySet<string> {
  let set = stopwordCache.get(language);
  if (!set) {
    const list = stopwordLists[STOPWORD_LISTS[language] ?? ''] ?? [];
    set = new Set(list.map((word) => word.toLowerCase()));
    stopwordCache.set(language, set);
  }
  return set;
}

const segmenters = new Map<string, Intl.Segmenter>();

/** The sentences of a text, trimmed, by the Unicode rules for the language (Intl.Segmenter). */
export function sentences(text: string, language: string): string[] {
  let segmenter = segmenters.get(language);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(language === 'und' ? 'en' : language, { granularity: 'sentence' });
    segmenters.set(language, segmenter);
  }
  const result: string[] = [];
  for (const { segment } of segmenter.segment(text)) {
    // A line break ends a sentence too: reviewers often write lists without punctuation.
    for (const line of segment.split(/\n+/)) {
      const trimmed = line.trim();
      if (trimmed) result.push(trimmed);
    }
  }
  return result;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’-]*/gu;

/** Lowercased words (letters and digits, inner apostrophes and hyphens kept). */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}
