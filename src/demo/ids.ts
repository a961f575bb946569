/**
 * The demo organization's well-known records: the world `patron serve` seeds on a fresh embedded database
 * (src/demo/world.ts) gives them these ids, and the documented examples name them, so "Test Request" in /docs works
 * on a fresh quick start (docs/api.md#documented-examples-and-the-demo-world). Each record an example changes for good (deletes, leaves,
 * revokes, redeems) has one of its own, so every example works once, in any order.
 */
const id = (suffix: string) => `0196a1c0-5e00-7000-8000-${suffix.padStart(12, '0')}`;

export const DEMO = {
  sites: { main: id('101'), outlet: id('102') },
  customers: {
    ada: id('201'),
    grace: id('202'),
    alan: id('203'),
    katherine: id('204'),
    margaret: id('205'),
    edsger: id('206'),
    barbara: id('207'),
  },
  products: { linenShirt: id('301'), merinoScarf: id('302'), canvasTote: id('303') },
  variants: { linenShirtM: id('311'), linenShirtL: id('312'), merinoScarfGrey: id('313') },
  productTags: { summer: id('401'), clearance: id('402') },
  orderTags: { gift: id('411'), priority: id('412') },
  customerTags: { vip: id('421'), newsletter: id('422') },
  orders: { first: id('501'), second: id('502') },
  orderItems: { shirts: id('511'), scarf: id('512') },
  webhooks: { orders: id('601'), retired: id('602') },
  deliveries: { ping: id('611') },
  programs: { main: id('701'), pilot: id('702') },
  tiers: { silver: id('711'), gold: id('712'), platinum: id('713') },
  rules: {
    orderSpend: id('721'),
    freeShippingForPoints: id('722'),
    stampCard: id('723'),
    newsletterSignup: id('724'),
    retired: id('725'),
  },
  memberships: { ada: id('731'), grace: id('732'), alan: id('733') },
  rewards: { welcome: id('741'), apology: id('742'), birthday: id('743') },
  /** Reviews: Ada's to read, change and reply to; Grace's, which has a reply to delete; a spam one to delete. */
  reviews: { adaOnShirt: id('801'), spam: id('802'), graceOnShirt: id('803') },
  quickFilters: { vipCustomers: id('901'), bigOrders: id('902'), retired: id('903') },
  wishlists: { adaSummer: id('951'), graceOld: id('952') },
  wishlistItems: { adaShirt: id('961'), adaScarf: id('962'), graceTote: id('963') },
  productQuestions: { shirtShrink: id('971'), scarfWarmth: id('972'), spam: id('973') },
  productQuestionAnswers: {
    shirtShrinkByStore: id('981'),
    shirtShrinkByShopper: id('982'),
    shirtShrinkStale: id('983'),
  },
  /** A products export written by the seed (get, download), and one queued after it (cancel). */
  exportJobs: { products: id('991'), queued: id('992') },
  importJobs: { customers: id('993'), queued: id('994') },
  /** Dashboard users: the owner `serve` prints a sign-in link for, one to change, one to delete. */
  users: { owner: id('1001'), analyst: id('1002'), leaver: id('1003') },
  /** Email templates: one to preview and change, one of another kind, one to delete. */
  emailTemplates: {
    rewardIssued: id('1021'),
    pointsExpiring: id('1022'),
    retired: id('1023'),
    surveyRequest: id('1024'),
    reviewReplied: id('1025'),
  },
  /**
   * The mail log: the reward mail to Ada, logged (the demo sends no mail: no SMTP_URL), and the survey requests her
   * delivered order scheduled.
   */
  mail: { rewardIssued: id('1031'), surveyAda: id('1032'), surveyAdaShipped: id('1033') },
  /** Survey flows: after delivery, after shipping, and a paused one to delete. */
  surveyFlows: { afterDelivery: id('1041'), paused: id('1042'), afterShipping: id('1043') },
  /** The surveys Ada's order scheduled: one to answer, one to delete. */
  surveys: { ada: id('1051'), adaShipped: id('1052') },
  /** A secret key beside the demo key, for the revoke example (the demo key keeps working). */
  keys: { storefront: id('1011') },
  /** The main site's site.created event, which no endpoint subscribes to: read and sent by hand. */
  events: { mainSiteCreated: id('1061') },
} as const;

/** The code of the reward the redeem example spends (it is pending until then). */
export const DEMO_REDEEMABLE_CODE = 'SPRG-26AB-CD34';

/**
 * The instant the demo world is written as of: its dates as written are this day's, and the documented examples
 * (data/demo-responses.json) are generated on a world seeded as of it, so they do not depend on the day they are
 * generated. Seeded on another day, every date moves by the whole days between (docs/api.md#documented-examples-and-the-demo-world).
 */
export const DEMO_ANCHOR = new Date('2026-06-12T14:30:00Z');
