import { Observable, type Subscriber } from 'rxjs';
import { context, trace, type Context } from '@opentelemetry/api';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ConversationMessage, Dialogue, DialogueInput, DialogueOutput, Expectation } from '../../src/agent/index.js';
import { renderTemplate, ScriptStateMachine, scriptExpectations, type ConversationState, type DialogueScript, type Outcome, type TurnOutcome } from '../scripted/index.js';
import { declaredTool, EXPECT_TOOL, expectTool, runTool, toChatMessages, type ChatTool, type RetryOptions, type ToolOutcome } from '../openai/index.js';
import { toolResultContent, userMessage } from '../openai/chat-messages.js';
import { CompletionStream, outgoingTraceparent, type WireToolCall } from '../openai/completion-stream.js';
import { expectationsOf } from '../openai/expect-tool.js';
import { parseCondition } from './condition.js';
import type { Flow, FlowState } from './flow-schema.js';
import { FILL_SLOTS_TOOL, fillSlotsTool, GOTO_TOOL, gotoTool, wireName } from './flow-tools.js';

export interface FlowDialogueOptions {
  name?: string;
  /** Tools given in code, named in the flow's states like the declared ones. */
  tools?: readonly ChatTool[];
  /** The model's base URL instead of the flow's `llm.url` (another server, a test double). */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer`; the flow's `llm.key`, else `$OPENAI_API_KEY`. */
  apiKey?: string;
  retry?: RetryOptions;
  requestTimeoutMs?: number;
  /** Model requests in one turn (tool rounds and states the model enters), at most. */
  maxRounds?: number;
  /** The HTTP client of the model and of `http` tools (default: the global `fetch`). */
  fetch?: typeof fetch;
}

/** Where the call is in the flow. */
interface Position {
  conversation: ConversationState;
  /** History entries before the state was entered (what `context: reset` leaves out). */
  enteredAt: number;
  /** Caller turns taken in the state (for `after`). */
  turns: number;
  summary?: string;
  /** What the model said it expects (`expect_answer`). */
  expect?: readonly Expectation[];
}

const summaryRequest =
  'Summarise the conversation so far in two or three sentences for the next step of the call: who the caller is and every fact they gave (names, dates, numbers), and what was done.';

/**
 * A scripted dialogue whose states may be run by a model (`llm:` states): in such a state the model gets the
 * flow's instructions and the state's task as its system prompt, only the state's tools (plus `global_tools`,
 * `goto`, `fill_slots`, `expect_answer`), and the history its `context` strategy keeps. Tool results move the
 * call on (`on_tool`), as do the model's `goto` and the scripted outcomes. One per call: it keeps the call's
 * position, committed when a reply is kept (a discarded speculative reply leaves nothing behind).
 */
export class FlowDialogue implements Dialogue {
  readonly name: string;
  readonly repromptAfterMs?: number;
  private readonly machine: ScriptStateMachine;
  private readonly opening: string;
  private position: Position;
  private readonly tools = new Map<string, ChatTool>();
  private readonly completions: CompletionStream | undefined;
  private readonly maxRounds: number;
  private readonly requestTimeoutMs: number;

  constructor(readonly flow: Flow, options: FlowDialogueOptions = {}) {
    this.name = options.name ?? flow.name;
    if (flow.repromptAfterMs !== undefined) this.repromptAfterMs = flow.repromptAfterMs;
    this.machine = new ScriptStateMachine(flow as unknown as DialogueScript, {}, (state) => flow.states[state]?.llm !== undefined);
    const { state, opening } = this.machine.start();
    this.opening = opening;
    this.position = { conversation: state, enteredAt: 0, turns: 0 };
    for (const [name, declaration] of Object.entries(flow.tools)) this.tools.set(name, declaredTool(name, declaration, options.fetch));
    for (const tool of options.tools ?? []) this.tools.set(tool.name, tool);
    this.tools.set(EXPECT_TOOL, expectTool);
    this.maxRounds = options.maxRounds ?? 8;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    if (flow.llm) {
      const apiKey = options.apiKey ?? flow.llm.key;
      this.completions = new CompletionStream(
        [{ baseUrl: (options.baseUrl ?? flow.llm.url).replace(/\/+$/, ''), model: flow.llm.model, ...(apiKey !== undefined ? { apiKey } : {}) }],
        options.retry ?? { retries: 2, minDelayMs: 250, maxDelayMs: 1000 },
        options.fetch ? { fetch: options.fetch } : {},
        () => undefined,
      );
    }
  }

  greeting(): string | undefined {
    return this.opening || undefined;
  }

  /** The state the call is in. */
  get state(): string {
    return this.position.conversation.state;
  }

  get slots(): ConversationState['slots'] {
    return this.position.conversation.slots;
  }

  reprompt(): string | undefined {
    return this.machine.reprompt(this.position.conversation);
  }

  expectations(): readonly Expectation[] | undefined {
    const { conversation, expect } = this.position;
    const llm = this.flow.states[conversation.state]?.llm;
    const scripted = scriptExpectations(this.flow as unknown as DialogueScript, conversation);
    if (!llm) return scripted;
    const model = expect ?? (llm.expect === undefined ? [] : Array.isArray(llm.expect) ? llm.expect : [llm.expect]);
    // The state's `on:` intents are listened for too, so that their examples are heard as written.
    const intents = this.flow.states[conversation.state]?.on?.length ? (scripted ?? []) : [];
    const all = [...model, ...intents];
    return all.length > 0 ? all : undefined;
  }

  respond(input: DialogueInput): Observable<DialogueOutput> {
    const calledIn = context.active();
    return new Observable<DialogueOutput>((subscriber) => {
      const traceContext = trace.getSpanContext(context.active()) ? context.active() : calledIn;
      const abort = new AbortController();
      const turn = new FlowTurn(this, input, traceContext, abort.signal, subscriber);
      let settled = false;
      turn.run().then(
        async () => {
          settled = true;
          if (!input.speculative || (await input.speculative.kept())) this.position = turn.position;
          subscriber.complete();
        },
        (error: unknown) => {
          settled = true;
          if (!abort.signal.aborted) subscriber.error(error);
        },
      );
      return () => {
        abort.abort();
        // Cut off mid-turn (barge-in): what already happened (tools that ran, states entered) stands.
        if (!settled && !input.speculative) this.position = turn.position;
      };
    });
  }

  /** @internal the pieces a turn works with. */
  parts() {
    return { flow: this.flow, machine: this.machine, tools: this.tools, completions: this.completions, maxRounds: this.maxRounds, requestTimeoutMs: this.requestTimeoutMs, position: this.position };
  }
}

/** One caller turn through the flow. */
class FlowTurn {
  position: Position;
  private readonly parts: ReturnType<FlowDialogue['parts']>;
  private readonly history: readonly ConversationMessage[];
  /** This turn's messages so far (the caller's words, tool calls and results), for states that keep the context. */
  private readonly turnMessages: ChatCompletionMessageParam[] = [];
  private spoken = '';
  private rounds = 0;
  /** The reply was speculative and thrown away: nothing more happens. */
  private discarded = false;

  constructor(
    dialogue: FlowDialogue,
    private readonly input: DialogueInput,
    private readonly traceContext: Context,
    private readonly signal: AbortSignal,
    private readonly out: Subscriber<DialogueOutput>,
  ) {
    this.parts = dialogue.parts();
    this.position = this.parts.position;
    const last = input.history.at(-1);
    this.history = last?.role === 'user' && last.text === input.userText ? input.history.slice(0, -1) : input.history;
  }

  async run(): Promise<void> {
    const { flow, machine } = this.parts;
    const { conversation } = this.position;
    const state = flow.states[conversation.state]!;
    this.turnMessages.push(userMessage(this.input.userText, this.input.expected));
    // A scripted state, or words that say one of an LLM state's `on:` intents (or a confirmation it asked for): no model.
    if (!state.llm || conversation.unconfirmed !== undefined || machine.matchesIntent(conversation, this.input.userText)) {
      const lastAgent = [...this.history].reverse().find((m) => m.role === 'agent')?.text ?? '';
      const heard = this.input.expected === undefined ? {} : { expected: this.input.expected };
      await this.take(machine.step(conversation, this.input.userText, lastAgent, heard));
      return;
    }
    this.position = { ...this.position, turns: this.position.turns + 1 };
    if (state.after && this.position.turns > state.after.turns) {
      await this.take(machine.follow(this.position.conversation, state.after), state.after.goto !== undefined);
      return;
    }
    await this.converse();
  }

  /** Says and does what a scripted outcome says, then lets the model speak first if it entered an LLM state. */
  private async take(outcome: TurnOutcome, reentered = false): Promise<void> {
    const before = this.position.conversation;
    for (const action of outcome.actions) this.out.next({ type: 'tool-call', name: action.name, arguments: action.arguments });
    this.say(outcome.reply);
    this.position = { ...this.position, conversation: outcome.next };
    if (outcome.endReason !== undefined) {
      this.out.next({ type: 'end-call', reason: outcome.endReason });
      return;
    }
    if (outcome.next.state !== before.state || reentered) await this.enter(this.parts.flow.states[outcome.next.state]!);
  }

  /** The call moved to `state`: start counting its turns, apply its context strategy, and let the model open it. */
  private async enter(state: FlowState): Promise<void> {
    this.position = { conversation: this.position.conversation, enteredAt: this.history.length + 1, turns: 0 };
    if (!state.llm) return;
    if (state.llm.context === 'summary') this.position.summary = await this.summarise();
    if (state.llm.context !== 'append') this.turnMessages.length = 0;
    if (!state.say) await this.converse();
  }

  /** Model rounds in the current LLM state until it stops calling tools or the call moves to another state. */
  private async converse(): Promise<void> {
    const { flow, completions } = this.parts;
    const state = flow.states[this.position.conversation.state]!;
    const offered = this.offeredTools(state);
    for (;;) {
      if (++this.rounds > this.parts.maxRounds || this.signal.aborted) return;
      const messages = this.messages(state);
      const request = { messages, tools: offered.map(([wire, tool]) => toolEntry(wire, tool)), traceContext: this.traceContext, signal: this.signal, timeoutMs: this.parts.requestTimeoutMs };
      const before = this.spoken;
      const { text, toolCalls } = await completions!.complete(request, (delta) => this.stream(delta, before));
      if (toolCalls.length === 0) return;
      this.turnMessages.push({ role: 'assistant', content: text || null, tool_calls: toolCalls });
      let next: Outcome | undefined;
      for (const call of toolCalls) {
        const outcome = await this.call(call, state, offered);
        if (this.signal.aborted || this.discarded) return;
        next ??= outcome;
      }
      next ??= this.formDone(state);
      if (next) {
        await this.take(this.parts.machine.follow(this.position.conversation, next), next.goto !== undefined);
        return;
      }
    }
  }

  /** Runs one tool call; returns the outcome it leads to (`on_tool`, `goto`), if any. */
  private async call(call: WireToolCall, state: FlowState, offered: ReadonlyArray<readonly [string, ChatTool]>): Promise<Outcome | undefined> {
    const args = parseArguments(call.function.arguments);
    const found = offered.find(([wire]) => wire === call.function.name);
    const answer = (outcome: { result?: unknown; error?: string }) => this.turnMessages.push({ role: 'tool', tool_call_id: call.id, content: toolResultContent(outcome) });
    if (!found) {
      const error = `there is no tool named "${call.function.name}" in this step; the tools you may call are: ${offered.map(([wire]) => wire).join(', ')}`;
      // Refused, not run: only the model hears of it (a tool of another step is not a call the application acts on).
      answer({ error });
      return undefined;
    }
    const [, tool] = found;
    if (!args) {
      answer({ error: `the arguments are not a JSON object: ${call.function.arguments.slice(0, 120)}` });
      return undefined;
    }
    if (tool.name === GOTO_TOOL) {
      answer({ result: { ok: true } });
      return typeof args.state === 'string' && state.llm?.goto?.includes(args.state) ? { goto: args.state } : undefined;
    }
    if (tool.name === FILL_SLOTS_TOOL) {
      const slots = { ...this.position.conversation.slots };
      for (const item of state.collect ?? []) {
        const value = args[item.slot];
        if (typeof value === 'string' || typeof value === 'number') slots[item.slot] = value;
      }
      this.position = { ...this.position, conversation: { ...this.position.conversation, slots } };
      answer({ result: { ok: true } });
      return undefined;
    }
    if (!tool.speculative && this.input.speculative && !(await this.input.speculative.kept())) {
      this.discarded = true;
      return undefined;
    }
    if (this.signal.aborted) return undefined;
    if (tool.name === EXPECT_TOOL) {
      const expectations = expectationsOf(args);
      if (expectations) {
        this.position = { ...this.position, expect: expectations };
        this.out.next({ type: 'expect', expectations });
      }
    }
    let outcome: ToolOutcome = { result: null };
    if (tool.run) {
      const toolContext = { callId: call.id, signal: this.signal, traceparent: outgoingTraceparent(this.traceContext), ...(this.input.callId ? { conversationId: this.input.callId } : {}) };
      outcome = await runTool(tool.run, args, toolContext);
      if (this.signal.aborted) return undefined;
      this.out.next({ type: 'tool-call', id: call.id, name: tool.name, arguments: args, ...outcome });
    } else this.out.next({ type: 'tool-call', id: call.id, name: tool.name, arguments: args });
    answer(outcome);
    const branch = state.on_tool?.[tool.name];
    if (!branch) return undefined;
    const scope = { result: 'result' in outcome ? outcome.result : undefined, error: 'error' in outcome ? outcome.error : undefined, args, slots: this.position.conversation.slots };
    const { when, else: otherwise, ...taken } = branch;
    if (when === undefined || parseCondition(when)(scope)) return taken;
    return otherwise;
  }

  /** The state collects slots, the model filled them all: its `then`. */
  private formDone(state: FlowState): Outcome | undefined {
    const collect = state.collect ?? [];
    if (!state.then || collect.length === 0) return undefined;
    const slots = this.position.conversation.slots;
    return collect.every((item) => slots[item.slot] !== undefined || item.default !== undefined) ? state.then : undefined;
  }

  /** The tools the model is offered in `state`, by the name it sees. */
  private offeredTools(state: FlowState): Array<readonly [string, ChatTool]> {
    const { flow, tools } = this.parts;
    const llm = state.llm!;
    const named = [...new Set([...llm.tools, ...flow.global_tools, EXPECT_TOOL])].map((name) => tools.get(name)).filter((tool) => tool !== undefined);
    const offered = named.map((tool) => [wireName(tool.name), tool] as const);
    if (llm.goto?.length) offered.push([GOTO_TOOL, gotoTool(llm.goto)]);
    if (state.collect?.length) offered.push([FILL_SLOTS_TOOL, fillSlotsTool(state)]);
    return offered;
  }

  /** The request's messages: the flow's instructions and the state's task, then what the state's context keeps. */
  private messages(state: FlowState): ChatCompletionMessageParam[] {
    const llm = state.llm!;
    const { flow } = this.parts;
    const { slots } = this.position.conversation;
    const known = Object.keys(slots).length > 0 ? `\n\nKnown so far: ${JSON.stringify(slots)}` : '';
    const system = [flow.llm?.instructions, renderTemplate(llm.task, slots)].filter(Boolean).join('\n\n') + known;
    const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
    if (llm.context === 'append') messages.push(...toChatMessages(this.history));
    else {
      if (this.position.summary) messages.push({ role: 'system', content: `Summary of the conversation before this step: ${this.position.summary}` });
      messages.push(...toChatMessages(this.history.slice(this.position.enteredAt)));
    }
    messages.push(...this.turnMessages);
    return messages;
  }

  private async summarise(): Promise<string> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: this.parts.flow.llm?.instructions ?? 'You help run a phone call.' },
      ...toChatMessages(this.history),
      ...this.turnMessages,
      { role: 'user', content: summaryRequest },
    ];
    const request = { messages, tools: [], traceContext: this.traceContext, signal: this.signal, timeoutMs: this.parts.requestTimeoutMs };
    const { text } = await this.parts.completions!.complete(request, () => undefined);
    return text.trim();
  }

  private say(text: string): void {
    if (!text) return;
    this.stream(text, this.spoken);
  }

  /** Streams a delta; the first of a new reply gets a space after what was already said. */
  private stream(delta: string, before: string): void {
    const joined = this.spoken === before && before && !/\s$/.test(before) && !/^\s/.test(delta) ? ` ${delta}` : delta;
    this.spoken += joined;
    this.out.next({ type: 'text', delta: joined });
  }
}

function toolEntry(wire: string, tool: ChatTool) {
  return { type: 'function' as const, function: { name: wire, description: tool.description ?? '', parameters: tool.parameters ?? { type: 'object', properties: {} } } };
}

function parseArguments(raw: string): Record<string, unknown> | undefined {
  if (!raw.trim()) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
