/** Common English abbreviations: how they are spoken, and which ones do not end a sentence. */

/** Title-like abbreviations: spoken form; they precede a name, so their period never ends a sentence. */
export const titles: Record<string, string> = {
  dr: 'Doctor', mr: 'Mister', mrs: 'Missus', ms: 'Miz', prof: 'Professor', rev: 'Reverend', gen: 'General',
  capt: 'Captain', sgt: 'Sergeant', lt: 'Lieutenant', col: 'Colonel', gov: 'Governor', sen: 'Senator', rep: 'Representative',
  hon: 'Honorable', mt: 'Mount', ft: 'Fort',
};

/** Abbreviations that may end a sentence when followed by a capital; spoken form. */
export const others: Record<string, string> = {
  jr: 'Junior', sr: 'Senior', st: 'Street', ave: 'Avenue', blvd: 'Boulevard', rd: 'Road', ln: 'Lane',
  co: 'Company', corp: 'Corporation', inc: 'Incorporated', ltd: 'Limited', dept: 'Department', est: 'established',
  approx: 'approximately', vs: 'versus', etc: 'et cetera', no: 'number', tel: 'telephone', apt: 'apartment',
  jan: 'January', feb: 'February', mar: 'March', apr: 'April', jun: 'June', jul: 'July', aug: 'August',
  sep: 'September', sept: 'September', oct: 'October', nov: 'November', dec: 'December',
  mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday',
};

/** Multi-period abbreviations: spoken form. */
export const dotted: Record<string, string> = {
  'e.g.': 'for example', 'i.e.': 'that is', 'a.m.': 'a m', 'p.m.': 'p m', 'u.s.': 'U S', 'u.k.': 'U K',
};

/**
 * True when the period after `wordBeforePeriod` belongs to an abbreviation rather than ending a sentence.
 * `nextWord` is the word after it (undefined at the end of the text, where every period is final).
 */
export function isNonFinalAbbreviation(wordBeforePeriod: string, nextWord: string | undefined): boolean {
  if (nextWord === undefined) return false;
  const bare = wordBeforePeriod.replace(/^[("'[]+/, '').toLowerCase();
  const nextIsLower = /^[a-z0-9]/.test(nextWord);
  if (Object.hasOwn(titles, bare)) return true;
  if (/^[a-z]$/.test(bare)) return wordBeforePeriod.length === 1 && /^[A-Z]$/.test(wordBeforePeriod) ? true : nextIsLower;
  if (bare === 'e.g' || bare === 'i.e' || bare === 'vs') return true;
  if (bare === 'no') return /^\d/.test(nextWord);
  if (/^([a-z]\.)+[a-z]$/.test(bare) || Object.hasOwn(others, bare)) return nextIsLower;
  return false;
}
