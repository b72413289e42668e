import { z } from 'zod';
import { mcpServerSpecSchema } from '../../plugins/mcp/mcp-spec.js';

/** What is wrong with a `/regex/flags` pattern, or undefined (a substring, or a regex that compiles). */
export function patternProblem(pattern: string): string | undefined {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (!regex) return undefined;
  try {
    new RegExp(regex[1]!, regex[2]);
    return undefined;
  } catch (error) {
    return `not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** A substring, or `/regex/flags`. */
const textPattern = z
  .string()
  .min(1)
  .superRefine((pattern, context) => {
    const problem = patternProblem(pattern);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
  .describe('a substring (case-insensitive), or /regex/flags');

const ms = z.number().nonnegative();
const textPatterns = z.union([textPattern, z.array(textPattern).min(1)]);

const action = z.union([
  z.enum(['end_call', 'transfer']),
  z.strictObject({ type: z.literal('transfer'), to: textPattern.describe('the number, SIP URI or named target the call is transferred to') }),
]);

const toolExpectation = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).optional().describe('matched as a subset of the call arguments'),
  times: z.number().int().positive().optional().describe('exactly this many such calls (default: at least one)'),
});

/** What the agent says and does, in a step's reply or over the whole call. */
const agentDoes = {
  says: textPatterns.optional().describe('what the agent says (a list: every one)'),
  not_says: textPatterns.optional().describe('what the agent must not say (a list: none of them)'),
  tool: toolExpectation.optional().describe('a tool the agent calls'),
  not_tool: z.string().min(1).optional().describe('a tool the agent must not call'),
  action: action.optional().describe('the agent ends the call (end_call) or transfers it (transfer, or {type: transfer, to})'),
};

/** What the agent's next turn after a step must do (all keys optional; all given must hold). */
export const stepExpectationSchema = z
  .strictObject({
    ...agentDoes,
    within_ms: ms.optional().describe("voice to voice: the caller's last voice sample to the agent's first audio sample, as the caller hears them"),
    heard: textPattern.optional().describe("what the agent's recogniser heard the caller say"),
    no_reply_ms: ms.optional().describe('the agent says nothing for this long after the step'),
    interrupted: z.literal(true).optional().describe('the agent turn the caller barged in on stopped'),
    judge: z.string().min(1).optional().describe('a criterion in plain words on the reply, checked by an LLM with --judge-url (skipped otherwise)'),
  })
  .describe('checked on the agent\'s next turn after the step');

const dtmfKeys = z.string().regex(/^[0-9*#A-Da-d]+$/, 'keys are 0-9, *, # and A-D');

export const stepSchema = z
  .strictObject({
    say: z.string().min(1).optional().describe("words the caller speaks, synthesised in the caller's voice"),
    play: z.string().min(1).optional().describe('a recording the caller plays (path relative to the scenario file; any format Shoal decodes)'),
    dtmf: dtmfKeys.optional().describe('keys the caller presses'),
    silence_ms: ms.optional().describe('the caller stays silent this long'),
    interrupt_after_ms: ms.optional().describe("with say/play: start that long after the agent's next turn starts (barge-in)"),
    expect: stepExpectationSchema.optional(),
  })
  .superRefine((step, context) => {
    const actions = (['say', 'play', 'dtmf', 'silence_ms'] as const).filter((key) => step[key] !== undefined);
    if (actions.length > 1) context.addIssue({ code: 'custom', message: `a step does one thing: ${actions.join(' and ')} given`, path: [actions[1]!] });
    if (actions.length === 0 && !step.expect) context.addIssue({ code: 'custom', message: 'a step needs say, play, dtmf, silence_ms or expect' });
    if (step.interrupt_after_ms !== undefined && step.say === undefined && step.play === undefined)
      context.addIssue({ code: 'custom', message: 'interrupt_after_ms goes with say or play', path: ['interrupt_after_ms'] });
  });

export const callExpectationSchema = z
  .strictObject({
    ...agentDoes,
    goal: z.enum(['reached', 'failed']).optional().describe("a simulated caller's model ended the call saying its goal was reached (or failed)"),
    turns: z
      .union([z.number().int().nonnegative(), z.strictObject({ min: z.number().int().nonnegative().optional(), max: z.number().int().nonnegative().optional() })])
      .optional()
      .describe("the agent's turns in the call, the greeting included: a number or {min, max}"),
    ends_with: z.enum(['end_call', 'transfer', 'caller_hangup']).optional().describe('how the call ends'),
    max_v2v_p95_ms: ms.optional().describe("95th percentile of the call's voice-to-voice times"),
    one_trace: z.literal(true).optional().describe("the call ran under the traceparent its carrier's start message carried, and every span the agent started (turns, recognition, dialogue, synthesis) joined that trace"),
    judge: z.string().min(1).optional().describe('a criterion in plain words on the whole transcript, checked by an LLM with --judge-url'),
  })
  .describe('checks on the whole call');

export const conditionsSchema = z
  .strictObject({
    noise_db: z.number().optional().describe("white noise added to the caller's audio at this signal-to-noise ratio, dB"),
    loss: z.number().min(0).max(1).optional().describe("share of the caller's 20 ms frames lost"),
    jitter_ms: ms.optional().describe("each caller frame arrives up to this much late (order kept)"),
    seed: z.number().int().optional().describe('seed of the noise, loss and jitter (--seed and --runs override it)'),
  })
  .describe("the line's conditions, applied to the caller's frames");

const modelUrl = z.url().describe('base URL of an OpenAI-compatible API, ending in /v1');

export const llmSchema = z.strictObject({
  url: modelUrl,
  model: z.string().min(1).optional(),
  instructions: z.string().min(1).optional().describe('a text file with the system prompt (relative to the scenario file)'),
  key: z.string().optional().describe('API key; $OPENAI_API_KEY when absent'),
  greeting: z.string().optional().describe('the agent\'s first line ("" for none)'),
  tools: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe('tools the model may call: a YAML or JSON file (relative to the scenario file) or `name: {description, parameters, http: {url, method}}`'),
  mcp: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/), mcpServerSpecSchema)
    .optional()
    .describe("MCP servers whose tools the model may call (as name_tool): a command line (stdio), a URL (Streamable HTTP), {command, args, env, speculative} or {url, speculative}"),
  mcp_tools: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*\.\S+$/, 'expected server.tool, e.g. bank.block_card'))
    .min(1)
    .optional()
    .describe('an allow-list of MCP tools as server.tool: of the servers named, only these tools are offered (the others offer all theirs)'),
}).superRefine((llm, context) => {
  const servers = Object.keys(llm.mcp ?? {});
  for (const [index, name] of (llm.mcp_tools ?? []).entries()) {
    const server = name.slice(0, name.indexOf('.'));
    if (!servers.includes(server)) context.addIssue({ code: 'custom', message: `unknown MCP server "${server}" (servers: ${servers.join(', ') || 'none in mcp:'})`, path: ['mcp_tools', index] });
  }
});

export const callerSchema = z
  .strictObject({
    voice: z.string().min(1).optional().describe('voice of say steps and of a simulated caller (a built-in voice such as rms, slt, awb, kal16, or a voice model id)'),
    gap_ms: ms.optional().describe('how long the caller waits after the agent stops before speaking'),
    persona: z.string().min(1).optional().describe('a simulated caller: who it is and how it talks'),
    goal: z.string().min(1).optional().describe('a simulated caller: what it wants from the call; its model ends the call when reached or failed'),
    llm: z
      .strictObject({ url: modelUrl, model: z.string().min(1).optional(), key: z.string().optional().describe('API key; $OPENAI_API_KEY when absent') })
      .optional()
      .describe("a simulated caller's model: an OpenAI-compatible chat API"),
    max_turns: z.number().int().positive().optional().describe('a simulated caller speaks at most this many times (default 8)'),
  })
  .describe('the caller: the voice of say steps, or a caller played by an LLM (persona, goal, llm)');

const settings = {
  agent: z.string().min(1).optional().describe('a ready-made agent: receptionist, support, echo'),
  script: z.string().min(1).optional().describe('a scripted dialogue file (relative to the scenario file)'),
  llm: llmSchema.optional(),
  mode: z.enum(['low-latency', 'balanced']).optional(),
  line: z.enum(['phone', 'wideband', 'browser']).optional().describe('phone: a Twilio media stream, 8 kHz mu-law; wideband: a Telnyx media stream, 16 kHz L16; browser: Shoal\'s browser protocol, 16 kHz PCM'),
  conditions: conditionsSchema.optional(),
  caller: callerSchema.optional(),
  reply_timeout_ms: ms.optional().describe('how long the caller waits for a reply before a step fails'),
};

function oneAgent(value: { agent?: string; script?: string; llm?: unknown }, context: z.RefinementCtx): void {
  const given = (['agent', 'script', 'llm'] as const).filter((key) => value[key] !== undefined);
  if (given.length > 1) context.addIssue({ code: 'custom', message: `give one of agent, script, llm: ${given.join(' and ')} given`, path: [given[1]!] });
}

export const scenarioSchema = z
  .strictObject({
    name: z.string().min(1),
    ...settings,
    steps: z.array(stepSchema).min(1).optional().describe('the caller\'s steps, in order (after a simulated caller\'s conversation, if any)'),
    expect: callExpectationSchema.optional(),
  })
  .superRefine(oneAgent);

/**
 * A scenario has steps or a simulated caller (a `goal`, merged from file and scenario); a simulated caller has a
 * model (`llm`), and `persona`/`max_turns` go with a goal. A file's `caller.llm` alone is shared by its scenarios' goals.
 */
function callerOrSteps(file: { caller?: Caller | undefined; scenarios: Array<{ caller?: Caller | undefined; steps?: unknown[] | undefined }> }, context: z.RefinementCtx): void {
  file.scenarios.forEach((scenario, index) => {
    const caller = { ...file.caller, ...scenario.caller };
    const at = scenario.caller && (['goal', 'persona', 'max_turns', 'llm'] as const).some((key) => scenario.caller![key] !== undefined) ? ['scenarios', index, 'caller'] : ['caller'];
    const given = (['persona', 'max_turns'] as const).filter((key) => caller[key] !== undefined);
    if (caller.goal !== undefined && caller.llm === undefined) context.addIssue({ code: 'custom', message: 'a simulated caller needs llm: { url, model }', path: at });
    else if (caller.goal === undefined && given.length) context.addIssue({ code: 'custom', message: `a simulated caller needs goal (it has ${given.join(', ')})`, path: at });
    else if (caller.goal === undefined && scenario.steps === undefined)
      context.addIssue({ code: 'custom', message: 'a scenario needs steps, or a simulated caller (caller: { persona, goal, llm })', path: ['scenarios', index] });
  });
}

export const scenarioFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    ...settings,
    scenarios: z.array(scenarioSchema).min(1),
  })
  .superRefine(oneAgent)
  .superRefine(callerOrSteps)
  .describe('A Shoal scenario file: simulated callers put through an agent by `shoal test`.');

export type ScenarioFile = z.infer<typeof scenarioFileSchema>;
export type ScenarioSpec = z.infer<typeof scenarioSchema>;
export type Step = z.infer<typeof stepSchema>;
export type StepExpectation = z.infer<typeof stepExpectationSchema>;
export type CallExpectation = z.infer<typeof callExpectationSchema>;
export type Conditions = z.infer<typeof conditionsSchema>;
export type Caller = z.infer<typeof callerSchema>;
export type Line = NonNullable<ScenarioSpec['line']>;
export type LlmSettings = z.infer<typeof llmSchema>;

/** The JSON Schema of scenario files, as committed in schemas/scenario.schema.json. */
export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(scenarioFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
