/**
 * Whether a text is a sentence of a JSGF grammar made by `compileGrammar`: lets recognition with
 * expectations take the open-vocabulary result as the expected answer, without decoding the audio again,
 * when that result already is one. Understands the subset `compileGrammar` writes: rule definitions,
 * alternatives `|`, groups `( )`, optionals `[ ]`, repetition `*` and `+`, and rule references `<name>`.
 */
export function grammarAccepts(jsgf: string, text: string): boolean {
  const rules = parseRules(jsgf);
  const words = text.trim().split(/\s+/).filter(Boolean);
  const start = rules.get('expected');
  if (!start || words.length === 0) return false;
  return ends(start, words, 0, rules).has(words.length);
}

type Node =
  | { type: 'word'; word: string }
  | { type: 'ref'; name: string }
  | { type: 'seq'; items: Node[] }
  | { type: 'alt'; options: Node[] }
  | { type: 'optional'; node: Node }
  | { type: 'repeat'; node: Node; min: 0 | 1 };

const parsed = new Map<string, Map<string, Node>>();

function parseRules(jsgf: string): Map<string, Node> {
  const cached = parsed.get(jsgf);
  if (cached) return cached;
  const rules = new Map<string, Node>();
  for (const line of jsgf.split('\n')) {
    const match = /^(?:public\s+)?<([^>]+)>\s*=\s*(.*);\s*$/.exec(line.trim());
    if (match) rules.set(match[1]!, new Parser(match[2]!).parse());
  }
  if (parsed.size > 32) parsed.clear();
  parsed.set(jsgf, rules);
  return rules;
}

class Parser {
  private readonly tokens: string[];
  private at = 0;

  constructor(body: string) {
    this.tokens = body.match(/<[^>]+>|[()[\]|*+]|[^\s()[\]|*+<]+/g) ?? [];
  }

  parse(): Node {
    return this.alternatives();
  }

  private alternatives(): Node {
    const options = [this.sequence()];
    while (this.tokens[this.at] === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { type: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let token = this.tokens[this.at]; token !== undefined && !['|', ')', ']'].includes(token); token = this.tokens[this.at]) {
      let item = this.atom();
      while (this.tokens[this.at] === '*' || this.tokens[this.at] === '+') {
        item = { type: 'repeat', node: item, min: this.tokens[this.at++] === '+' ? 1 : 0 };
      }
      items.push(item);
    }
    return items.length === 1 ? items[0]! : { type: 'seq', items };
  }

  private atom(): Node {
    const token = this.tokens[this.at++]!;
    if (token === '(' || token === '[') {
      const inner = this.alternatives();
      this.at++; // the closing bracket
      return token === '(' ? inner : { type: 'optional', node: inner };
    }
    if (token.startsWith('<')) return { type: 'ref', name: token.slice(1, -1) };
    return { type: 'word', word: token };
  }
}

/** The positions in `words` where `node`, started at `from`, can end. */
function ends(node: Node, words: readonly string[], from: number, rules: Map<string, Node>): Set<number> {
  switch (node.type) {
    case 'word':
      return new Set(words[from] === node.word ? [from + 1] : []);
    case 'ref': {
      const rule = rules.get(node.name);
      return rule ? ends(rule, words, from, rules) : new Set();
    }
    case 'seq': {
      let at = new Set([from]);
      for (const item of node.items) at = new Set([...at].flatMap((p) => [...ends(item, words, p, rules)]));
      return at;
    }
    case 'alt':
      return new Set(node.options.flatMap((option) => [...ends(option, words, from, rules)]));
    case 'optional':
      return new Set([from, ...ends(node.node, words, from, rules)]);
    case 'repeat': {
      const reached = new Set(node.min === 0 ? [from] : []);
      let frontier = new Set([from]);
      for (let round = 0; frontier.size > 0 && round <= words.length; round++) {
        const next = new Set<number>();
        for (const p of frontier) for (const end of ends(node.node, words, p, rules)) if (end > p && !reached.has(end)) next.add(end);
        for (const end of next) reached.add(end);
        frontier = next;
      }
      return reached;
    }
  }
}
