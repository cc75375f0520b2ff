/** Letters NFKD leaves whole, spelled the way an English keyboard user types them. */
const FOLDS: Readonly<Record<string, string>> = { ß: 'ss', ø: 'o', æ: 'ae', œ: 'oe', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

/**
 * The form names and queries are compared in: lower case, accents dropped,
 * every run of punctuation or space one space. `Baden-Württemberg` and
 * `baden wurttemberg` fold alike, as do `Côte d’Ivoire` and `cote d'ivoire`.
 * Lower-casing comes first so that `İ` loses its dot with the other marks.
 */
export function foldText(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßøæœłđðþı]/gu, (c) => FOLDS[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
