/**
 * Spreadsheet formula neutralisation of CSV text cells (docs/api.md#formulas-in-csv-files), as OWASP's "CSV Injection"
 * page recommends: a text cell that a spreadsheet would read as a formula (it begins with `=`, `+`, `-`, `@`, a tab or
 * a carriage return) is written with a single quote before it. So that the import can undo exactly that, a text that
 * already begins with quotes followed by one of those characters gets one more quote too: the export adds one quote
 * to every text matching `^'*[=+\-@\t\r]`, and the import takes one off every cell matching `^'+[=+\-@\t\r]`.
 */

/** The characters a spreadsheet reads a formula (or a DDE call) from at the start of a cell. */
export const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r'] as const;

const NEEDS_QUOTE = /^'*[=+\-@\t\r]/;
const QUOTED = /^'+[=+\-@\t\r]/;

/** A text cell as the export writes it. Numbers are not text: a negative number is written as it is. */
export function neutralizeFormula(text: string): string {
  return NEEDS_QUOTE.test(text) ? `'${text}` : text;
}

/** A CSV cell as the import reads it: what `neutralizeFormula` added taken off. */
export function restoreFormula(cell: string): string {
  return QUOTED.test(cell) ? cell.slice(1) : cell;
}
