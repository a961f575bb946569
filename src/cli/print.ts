/** A command's result: one JSON object with --json, else the text for a person. */
export const print = (json: boolean | undefined, value: object, text: string) =>
  process.stdout.write(json ? JSON.stringify(value) + '\n' : text + '\n');
