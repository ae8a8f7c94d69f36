// Text that keeps nothing else alive. V8 takes a substring of 13 characters or more as a view into the string it was
// cut from, so one such slice kept (a URL from the config, an amount from BestChange's feed) keeps the whole file's
// text it was read from alive as long as it is kept.

/** Shorter substrings are copies already. */
const viewLength = 13;

/** `text` as a string of its own (the same UTF-16 units: JSON keeps lone surrogates); short texts as they are. */
export const ownString = (text: string): string =>
  text.length < viewLength ? text : (JSON.parse(JSON.stringify(text)) as string);
