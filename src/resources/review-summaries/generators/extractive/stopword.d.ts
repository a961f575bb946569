// stopword ships no type declarations: the part Patron uses.
declare module 'stopword' {
  const lists: Record<string, readonly string[] | undefined>;
  export default lists;
}
