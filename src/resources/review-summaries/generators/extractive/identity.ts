/** The built-in generator's name and version, apart from the generator so that naming it loads none of its data. */
export const EXTRACTIVE_MODEL_ID = 'patron-extractive';
/** Bump when a change to this folder changes what it writes for the same reviews. */
export const EXTRACTIVE_VERSION = 1;
