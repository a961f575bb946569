import { createRequire } from 'node:module';
import Sentiment from 'sentiment';

/**
 * Word-level sentiment (the `sentiment` package: AFINN-165 for English) with what reviews of goods need on top:
 * shopping words AFINN lacks (slow, flimsy, overpriced…), a German lexicon of the same kind, and negation that
 * looks three words back ("not very comfortable"), not one.
 */
const require = createRequire(import.meta.url);
const afinn = require('sentiment/languages/en/labels.json') as Record<string, number>;

const EN_SHOPPING: Record<string, number> = {
  slow: -2,
  slowly: -1,
  late: -2,
  delayed: -2,
  ages: -1,
  flimsy: -3,
  overpriced: -3,
  scratchy: -2,
  comfy: 2,
  snug: 1,
  cheap: -1,
  cheaply: -2,
  cracked: -2,
  chipped: -2,
  smashed: -3,
  dented: -2,
  promptly: 2,
  speedy: 2,
  narrow: -1,
  sturdy: 2,
  solid: 1,
  pricey: -1,
  pricy: -1,
  expensive: -1,
  affordable: 2,
  inexpensive: 1,
  blister: -2,
  blisters: -2,
  pinch: -2,
  pinches: -2,
  pinching: -2,
  rubs: -1,
  chafing: -2,
  chafes: -2,
  frayed: -2,
  fraying: -2,
  ripped: -2,
  torn: -2,
  pilling: -2,
  peeling: -2,
  faded: -2,
  shrank: -2,
  shrunk: -2,
  stiff: -1,
  flawless: 3,
  roomy: 1,
  missing: -2,
  responsive: 2,
  unresponsive: -2,
  soft: 1,
  cozy: 2,
  cosy: 2,
  breathable: 1,
  gorgeous: 3,
  stylish: 2,
  unraveled: -2,
  unravelled: -2,
  wobbly: -2,
  leaks: -2,
  leaked: -2,
  leaking: -2,
  itchy: -2,
  refund: 0,
  stole: -3,
  decent: 1,
  // Aspect nouns AFINN scores as praise: naming an aspect says nothing about it.
  quality: 0,
  fit: 0,
  comfort: 0,
  support: 0,
  care: 0,
  worn: 0,
  grey: 0,
  gray: 0,
};

const DE_LEXICON: Record<string, number> = {
  gut: 2,
  gute: 2,
  guter: 2,
  gutes: 2,
  guten: 2,
  super: 3,
  toll: 3,
  tolle: 3,
  toller: 3,
  tolles: 3,
  prima: 3,
  klasse: 3,
  perfekt: 3,
  perfekte: 3,
  perfekten: 3,
  hervorragend: 3,
  ausgezeichnet: 3,
  exzellent: 3,
  wunderbar: 3,
  wunderschön: 3,
  schön: 2,
  schöne: 2,
  schönes: 2,
  schöner: 2,
  bequem: 2,
  bequeme: 2,
  bequemer: 2,
  weich: 1,
  angenehm: 2,
  zufrieden: 2,
  begeistert: 3,
  empfehlenswert: 3,
  empfehlen: 2,
  empfehle: 2,
  top: 3,
  spitze: 3,
  pünktlich: 2,
  hochwertig: 3,
  hochwertige: 3,
  hochwertiger: 3,
  robust: 2,
  stabil: 2,
  langlebig: 2,
  günstig: 1,
  preiswert: 2,
  fair: 2,
  faire: 2,
  fairer: 2,
  fairen: 2,
  freundlich: 2,
  freundliche: 2,
  hilfsbereit: 2,
  kompetent: 2,
  unkompliziert: 2,
  problemlos: 2,
  einwandfrei: 3,
  tadellos: 3,
  liebe: 3,
  lieben: 3,
  gerne: 1,
  gern: 1,
  warm: 1,
  stylisch: 2,
  schick: 2,
  edel: 2,
  solide: 2,
  wert: 2,
  lohnt: 2,
  beste: 3,
  besten: 3,
  bester: 3,
  wasserdicht: 2,
  trocken: 1,
  dicht: 1,
  atmungsaktiv: 1,
  kuschelig: 2,
  sauber: 1,
  ordentlich: 1,
  gefällt: 2,
  gefallen: 2,
  glücklich: 3,
  schlecht: -2,
  schlechte: -2,
  schlechter: -2,
  schlechtes: -2,
  schlechten: -2,
  mangelhaft: -3,
  enttäuscht: -2,
  enttäuschend: -2,
  enttäuschung: -2,
  leider: -1,
  schade: -1,
  kaputt: -3,
  beschädigt: -3,
  defekt: -3,
  gerissen: -2,
  billig: -1,
  minderwertig: -3,
  teuer: -1,
  überteuert: -3,
  langsam: -2,
  verspätet: -2,
  verspätung: -2,
  spät: -1,
  ewig: -1,
  unbequem: -2,
  kratzt: -2,
  kratzig: -2,
  drückt: -2,
  scheuert: -2,
  ärgerlich: -2,
  nervig: -2,
  unfreundlich: -2,
  katastrophe: -3,
  katastrophal: -3,
  furchtbar: -3,
  schrecklich: -3,
  fehlerhaft: -2,
  falsch: -2,
  falsche: -2,
  fehlt: -2,
  fehlte: -2,
  verloren: -2,
  problem: -2,
  probleme: -2,
  mangel: -2,
  mängel: -2,
  dünn: -1,
  steif: -1,
  ausgeleiert: -2,
  verwaschen: -2,
  eingelaufen: -2,
  undicht: -3,
  nass: -2,
  durchnässt: -3,
  schwitzt: -1,
  schwitzen: -1,
  ärger: -2,
};

const EN_NEGATORS = new Set([
  'not',
  'no',
  'never',
  'nothing',
  'hardly',
  'barely',
  'without',
  'nor',
  'cant',
  "can't",
  'dont',
  "don't",
  'doesnt',
  "doesn't",
  'didnt',
  "didn't",
  'isnt',
  "isn't",
  'wasnt',
  "wasn't",
  'werent',
  "weren't",
  'arent',
  "aren't",
  'wont',
  "won't",
  'wouldnt',
  "wouldn't",
  'couldnt',
  "couldn't",
  'havent',
  "haven't",
  'hasnt',
  "hasn't",
  'non',
]);
const DE_NEGATORS = new Set([
  'nicht',
  'kein',
  'keine',
  'keinen',
  'keiner',
  'keines',
  'keinem',
  'nie',
  'niemals',
  'kaum',
  'ohne',
]);

const NEGATION_WINDOW = 3;
/** A negation does not reach past these ("hardly rustles and is soft"). */
const NEGATION_STOPS = new Set(['and', 'or', 'but', 'und', 'oder', 'aber']);

function negationWithin(negators: ReadonlySet<string>) {
  return {
    apply(tokens: string[], cursor: number, score: number): number {
      for (let i = cursor - 1; i >= Math.max(0, cursor - NEGATION_WINDOW); i--) {
        if (NEGATION_STOPS.has(tokens[i]!)) break;
        if (negators.has(tokens[i]!)) return -score;
      }
      return score;
    },
  };
}

const analyzer = new Sentiment();
analyzer.registerLanguage('en-shopping', {
  labels: { ...afinn, ...EN_SHOPPING },
  scoringStrategy: negationWithin(EN_NEGATORS),
});
analyzer.registerLanguage('de-shopping', { labels: { ...DE_LEXICON }, scoringStrategy: negationWithin(DE_NEGATORS) });
const LEXICONS: Record<string, string> = { en: 'en-shopping', de: 'de-shopping' };

/** Turns of phrase that complain without a complaining word ("I expected better"). */
const DISAPPOINTED: Record<string, RegExp> = {
  en: /\b(?:expected (?:\w+ ){0,3}(?:better|more|fewer|less)|not as \w+ as|could be better|should be better|at best)\b/u,
  de: /(?:mehr|besseres|bessere|besser) erwartet|könnte besser sein/u,
};

/** The summed word polarity of a text (positive praises, negative complains); 0 for a language without a lexicon. */
export function polarity(text: string, language: string | null): number {
  const code = language ?? 'en';
  const lexicon = LEXICONS[code];
  if (!lexicon) return 0;
  const normalized = text.replace(/[’‘]/g, "'").toLowerCase();
  return analyzer.analyze(normalized, { language: lexicon }).score - (DISAPPOINTED[code]?.test(normalized) ? 3 : 0);
}

/**
 * Where a clause ends: sentence ends, commas, and words that turn a sentence around, so "love it, but it arrived
 * late" is scored as two clauses. Group 1 is set for the turning words.
 */
const BOUNDARY =
  /[.!?\n]+|,|(;|\s[-–—]\s|\b(?:but|however|although|though|yet|except|whereas|aber|jedoch|allerdings|doch|sondern|trotzdem|obwohl|nur)\b)/giu;

const sign = (value: number) => (value > 0 ? 1 : value < 0 ? -1 : 0);
/** What the stars say when the words do not: 4–5 praise, 1–2 complain, 3 says neither. */
export const ratingSign = (rating: number) => (rating >= 4 ? 1 : rating <= 2 ? -1 : 0);

interface Clause {
  text: string;
  start: number;
  /** The clause starts with a turning word ("but …"). */
  turned: boolean;
  /** The clause before it. */
  before: string;
}

function clauseAt(text: string, index: number): Clause {
  let start = 0;
  let end = text.length;
  let turned = false;
  let previousStart = 0;
  for (const match of text.matchAll(BOUNDARY)) {
    const at = match.index;
    if (at <= index) {
      previousStart = start;
      start = at + match[0].length;
      turned = match[1] !== undefined;
    } else {
      end = at;
      break;
    }
  }
  return { text: text.slice(start, end), start, turned, before: text.slice(previousStart, start) };
}

/**
 * How a clause judges the aspect mentioned in it: the aspect's own cues first ("runs small"), then its words; a
 * neutral clause right after a turning word ("love the fit, but delivery took a while") reads as the opposite of
 * the clause before it.
 */
function clauseJudgement(clause: Clause, language: string | null, cue: (clause: string) => number): number {
  const own = cue(clause.text) || sign(polarity(clause.text, language));
  if (own !== 0 || !clause.turned) return own;
  return -sign(polarity(clause.before, language));
}

/**
 * How a review judges an aspect it mentions at `indices` of `text` (lowercased): +1, -1 or 0. Every mention votes;
 * when they cancel out or say nothing, the rating decides.
 */
export function mentionPolarity(
  text: string,
  {
    indices,
    language,
    rating,
    cue,
  }: { indices: readonly number[]; language: string | null; rating: number; cue: (clause: string) => number },
): number {
  let votes = 0;
  const seen = new Set<number>();
  for (const index of indices) {
    const clause = clauseAt(text, index);
    // A clause votes once, however many of the aspect's words it holds.
    if (seen.has(clause.start)) continue;
    seen.add(clause.start);
    votes += clauseJudgement(clause, language, cue);
  }
  return sign(votes) || ratingSign(rating);
}
