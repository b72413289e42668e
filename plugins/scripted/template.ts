/** A value a slot can hold once filled. */
export type SlotValue = string | number;

type TemplatePart =
  | { kind: 'text'; text: string }
  | { kind: 'slot'; slot: string }
  | { kind: 'when'; slot: string; parts: TemplatePart[] };

export class TemplateSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

const slotName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses a reply template: `{slot}` inserts a slot's value; `{slot?text}` inserts `text` (which may itself hold
 * `{slot}`s) only when `slot` is filled. `{{` and `}}` are literal braces.
 */
export function parseTemplate(template: string): TemplatePart[] {
  let parts = parsedTemplates.get(template);
  if (!parts) {
    parts = parseUncached(template);
    if (parsedTemplates.size >= 2000) parsedTemplates.clear();
    parsedTemplates.set(template, parts);
  }
  return parts;
}

const parsedTemplates = new Map<string, TemplatePart[]>();

function parseUncached(template: string): TemplatePart[] {
  let position = 0;
  const parseParts = (nested: boolean): TemplatePart[] => {
    const parts: TemplatePart[] = [];
    let text = '';
    while (position < template.length) {
      const ch = template[position]!;
      if ((ch === '{' || ch === '}') && template[position + 1] === ch) {
        text += ch;
        position += 2;
      } else if (ch === '}') {
        if (!nested) throw new TemplateSyntaxError(`unexpected "}" at character ${position + 1}`);
        break;
      } else if (ch === '{') {
        if (text) parts.push({ kind: 'text', text });
        text = '';
        parts.push(parsePlaceholder());
      } else {
        text += ch;
        position += 1;
      }
    }
    if (text) parts.push({ kind: 'text', text });
    return parts;
  };
  const parsePlaceholder = (): TemplatePart => {
    const start = position;
    position += 1;
    const nameMatch = /^[^}?{]*/.exec(template.slice(position))![0];
    const name = nameMatch.trim();
    position += nameMatch.length;
    if (!slotName.test(name)) throw new TemplateSyntaxError(`"{${name}" at character ${start + 1} is not a slot name (letters, digits, _)`);
    let part: TemplatePart;
    if (template[position] === '?') {
      position += 1;
      part = { kind: 'when', slot: name, parts: parseParts(true) };
    } else {
      part = { kind: 'slot', slot: name };
    }
    if (template[position] !== '}') throw new TemplateSyntaxError(`"{" at character ${start + 1} is never closed`);
    position += 1;
    return part;
  };
  return parseParts(false);
}

/** Names of every slot a template refers to. */
export function templateSlots(template: string): string[] {
  const names = new Set<string>();
  const visit = (parts: TemplatePart[]): void => {
    for (const part of parts) {
      if (part.kind !== 'text') names.add(part.slot);
      if (part.kind === 'when') visit(part.parts);
    }
  };
  visit(parseTemplate(template));
  return [...names];
}

/** Fills a template; an unfilled `{slot}` renders empty and the spacing around it is tidied. */
export function renderTemplate(template: string, slots: Readonly<Record<string, SlotValue>>): string {
  const render = (parts: TemplatePart[]): string =>
    parts.map((part) => {
      if (part.kind === 'text') return part.text;
      const value = slots[part.slot];
      if (part.kind === 'slot') return value === undefined ? '' : String(value);
      return value === undefined ? '' : render(part.parts);
    }).join('');
  return render(parseTemplate(template)).replace(/\s+/g, ' ').replace(/\s+([,.!?;:])/g, '$1').trim();
}

/**
 * When the whole template is one `{slot}`, its raw value (numbers stay numbers in tool-call arguments), or
 * undefined while that slot is empty; otherwise the rendered text.
 */
export function renderValue(template: string, slots: Readonly<Record<string, SlotValue>>): SlotValue | undefined {
  const parts = parseTemplate(template);
  if (parts.length === 1 && parts[0]!.kind === 'slot') return slots[parts[0]!.slot];
  return renderTemplate(template, slots);
}
