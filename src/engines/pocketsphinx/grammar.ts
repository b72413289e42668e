import { noAnswers, yesAnswers, type Expectation } from '../../speech/index.js';
import { grammarAccepts } from './grammar-match.js';

/**
 * Expectations compiled to one JSGF grammar for pocketsphinx: each expectation becomes a rule, the public
 * rule is their alternatives. Phrases with a word the dictionary lacks are left out (pocketsphinx rejects a
 * grammar naming an unknown word); an expectation left with nothing, or `free`, adds no rule. `runDecoys`: runs
 * of keywords may also take the digit words they lack (`lackingDigits`), a grammar to check an answer with.
 */
export function compileGrammar(expectations: readonly Expectation[], knows: (word: string) => boolean, { runDecoys = false } = {}): string | undefined {
  const rules: string[] = [];
  const names: string[] = [];
  expectations.forEach((expectation, index) => {
    const body = ruleBody(expectation, knows, runDecoys);
    if (!body) return;
    names.push(`<e${index}>`);
    rules.push(`<e${index}> = ${body};`);
  });
  if (names.length === 0) return undefined;
  return ['#JSGF V1.0;', 'grammar expected;', `public <expected> = ${names.join(' | ')};`, ...shared, ...rules].join('\n');
}

/**
 * The grammar a search decodes with: the expectations' grammar and, beside it, `decoys`: words a caller says
 * that answer none of the expectations and are near expected answers acoustically ("oh" beside "no"). Speech
 * the search explains as a decoy is no expected answer. Decoys the grammar takes are left out.
 */
export function withDecoys(jsgf: string, decoys: readonly string[]): { jsgf: string; decoys: ReadonlySet<string> } {
  const kept = new Set(decoys.filter((word) => !grammarAccepts(jsgf, word)));
  if (kept.size === 0) return { jsgf, decoys: kept };
  const lines = jsgf.split('\n').map((line) => (line.startsWith('public <expected> = ') ? line.replace(/;$/, ' | <decoy>;') : line));
  return { jsgf: [...lines, `<decoy> = ${[...kept].join(' | ')};`].join('\n'), decoys: kept };
}

const digitWords = 'zero | oh | one | two | three | four | five | six | seven | eight | nine';
const teens = 'ten | eleven | twelve | thirteen | fourteen | fifteen | sixteen | seventeen | eighteen | nineteen';
const tens = 'twenty | thirty | forty | fifty | sixty | seventy | eighty | ninety';
const weekdays = 'monday | tuesday | wednesday | thursday | friday | saturday | sunday';
const months = 'january | february | march | april | may | june | july | august | september | october | november | december';
const ordinals =
  'first | second | third | fourth | fifth | sixth | seventh | eighth | ninth | tenth | eleventh | twelfth | thirteenth | ' +
  'fourteenth | fifteenth | sixteenth | seventeenth | eighteenth | nineteenth | twentieth | [twenty] (first | second | third | ' +
  'fourth | fifth | sixth | seventh | eighth | ninth) | thirtieth | thirty first';

/** Rules the expectation rules refer to (all words in the en-us dictionary). */
const shared = [
  `<digit> = ${digitWords};`,
  '<unit> = one | two | three | four | five | six | seven | eight | nine;',
  `<below100> = zero | <unit> | ${teens} | (${tens}) [<unit>];`,
  '<below1000> = <below100> | <unit> hundred [[and] <below100>];',
  '<hour> = one | two | three | four | five | six | seven | eight | nine | ten | eleven | twelve;',
  `<minute> = oh <unit> | ${teens} | (${tens}) [<unit>];`,
];

function ruleBody(expectation: Expectation, knows: (word: string) => boolean, runDecoys: boolean): string | undefined {
  switch (expectation.kind) {
    case 'free':
      return undefined;
    case 'yes-no':
      return alternatives([...yesAnswers, ...noAnswers], knows);
    case 'digits':
      return digitRun(expectation.minLength ?? 1, expectation.maxLength);
    case 'number':
      return (expectation.max ?? Infinity) < 100 ? '<below100>' : '<below1000> | <below1000> thousand [[and] <below1000>]';
    case 'time':
      return '[at] (<hour> [<minute>] [o\'clock] [a.m. | p.m.] | (half | quarter) past <hour> | quarter to <hour> | noon | midnight)';
    case 'date':
      return `[on] (today | tonight | tomorrow [morning | afternoon | evening | night] | [next | this] (${weekdays}) | ` +
        `(${months}) [the] (${ordinals}) | the (${ordinals}) [of (${months})])`;
    case 'choice':
      return alternatives(expectation.options, knows);
    case 'phrases': {
      const phrases = alternatives(expectation.phrases, knows);
      const run = expectation.keywords ?? [];
      const keywords = alternatives(runDecoys ? [...run, ...lackingDigits(run)] : run, knows);
      return [phrases, keywords && `(${keywords})+`].filter(Boolean).join(' | ') || undefined;
    }
    case 'name':
      return alternatives(expectation.names, knows);
  }
}

/**
 * The digit words a run of keywords with number words lacks ("zero" and "one" beside the card ranks "two" to
 * "ten"): a caller reading out a number says them, and the run's number words fit them nearly as well. Not "oh",
 * the interjection, near "of".
 */
export function lackingDigits(keywords: readonly string[]): string[] {
  const words = new Set(keywords.flatMap(phraseWords));
  const digits = digitWords.split(' | ').filter((word) => word !== 'oh');
  return digits.some((digit) => words.has(digit)) ? digits.filter((digit) => !words.has(digit)) : [];
}

/**
 * Digits said one by one, `min` to `max` of them. A lone "oh" is no answer of one digit: said alone it is the
 * interjection (a backchannel, src/agent/options.ts), and it is the digit word nearest to "no" and "go"; zero said
 * as "oh" comes among other digits.
 */
function digitRun(min: number, max: number | undefined): string {
  if (min > 1) return repeat('<digit>', min, max);
  return max === 1 ? 'zero | <unit>' : `zero | <unit> | ${repeat('<digit>', 2, max)}`;
}

/** `rule` said `min` to `max` times (unbounded without `max`), as nested optionals JSGF understands. */
function repeat(rule: string, min: number, max: number | undefined): string {
  const required = Array<string>(Math.max(1, min)).fill(rule).join(' ');
  if (max === undefined) return `${required} ${rule}*`;
  let optional = '';
  for (let extra = max - Math.max(1, min); extra > 0; extra--) optional = `[${rule}${optional ? ` ${optional}` : ''}]`;
  return optional ? `${required} ${optional}` : required;
}

/** The phrases the dictionary can spell, as JSGF alternatives; undefined when none is left. */
function alternatives(phrases: readonly string[], knows: (word: string) => boolean): string | undefined {
  const kept = new Set<string>();
  for (const phrase of phrases) {
    const words = phraseWords(phrase);
    if (words.length > 0 && words.every(knows)) kept.add(words.join(' '));
  }
  return kept.size > 0 ? [...kept].join(' | ') : undefined;
}

/** Lower-case dictionary words of a phrase: punctuation other than apostrophes dropped. */
export function phraseWords(phrase: string): string[] {
  return phrase
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter((word) => word && word !== "'");
}
