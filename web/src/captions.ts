/** Live captions: one block per turn; the caller's words (interim grey, final black) and the agent's words as played. */
export class Captions {
  private readonly turns = new Map<number, { user: HTMLElement; agent: HTMLElement }>();

  constructor(private readonly root: HTMLElement) {}

  reset(): void {
    this.turns.clear();
    this.root.replaceChildren();
  }

  caller(turn: number, text: string, final: boolean): void {
    const line = this.turn(turn).user;
    line.textContent = text;
    line.classList.toggle('interim', !final);
    line.classList.toggle('final', final);
    line.hidden = text.length === 0;
    this.scroll();
  }

  agent(turn: number, text: string, final: boolean, interrupted = false): void {
    const line = this.turn(turn).agent;
    line.textContent = text;
    line.classList.toggle('speaking', !final);
    line.classList.toggle('interrupted', interrupted);
    line.hidden = text.length === 0;
    this.scroll();
  }

  note(text: string): void {
    const line = document.createElement('p');
    line.className = 'note';
    line.textContent = text;
    this.root.append(line);
    this.scroll();
  }

  private turn(turn: number): { user: HTMLElement; agent: HTMLElement } {
    let lines = this.turns.get(turn);
    if (lines) return lines;
    const block = document.createElement('div');
    block.className = 'turn';
    block.dataset['turn'] = String(turn);
    const user = document.createElement('p');
    user.className = 'caller interim';
    user.hidden = true;
    const agent = document.createElement('p');
    agent.className = 'agent';
    agent.hidden = true;
    block.append(user, agent);
    const next = [...this.turns.keys()].filter((t) => t > turn).sort((a, b) => a - b)[0];
    const before = next === undefined ? null : this.root.querySelector(`.turn[data-turn="${next}"]`);
    this.root.insertBefore(block, before);
    lines = { user, agent };
    this.turns.set(turn, lines);
    return lines;
  }

  private scroll(): void {
    this.root.scrollTop = this.root.scrollHeight;
  }
}
