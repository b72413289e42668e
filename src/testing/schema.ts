import { z } from 'zod';

/** A substring, or `/regex/flags`. */
const textPattern = z.string().min(1).describe('a substring (case-insensitive), or /regex/flags');

const ms = z.number().nonnegative();
const textPatterns = z.union([textPattern, z.array(textPattern).min(1)]);

const action = z.union([
  z.enum(['end_call', 'transfer']),
  z.strictObject({ type: z.literal('transfer'), to: z.string().min(1).describe('the number, SIP URI or named target the call is transferred to') }),
]);

/** What the agent's next turn after a step must do (all keys optional; all given must hold). */
export const stepExpectationSchema = z
  .strictObject({
    says: textPatterns.optional().describe('what the agent says in its reply (a list: every one)'),
    not_says: textPatterns.optional().describe('what the agent must not say in its reply (a list: none of them)'),
    within_ms: ms.optional().describe("voice to voice: the caller's last voice sample to the agent's first audio sample, as the caller hears them"),
    tool: z
      .strictObject({
        name: z.string().min(1),
        args: z.record(z.string(), z.unknown()).optional().describe('matched as a subset of the call arguments'),
        times: z.number().int().positive().optional().describe('exactly this many such calls in the reply (default: at least one)'),
      })
      .optional()
      .describe('a tool the agent calls in its reply'),
    not_tool: z.string().min(1).optional().describe('a tool the agent must not call in its reply'),
    action: action.optional().describe('the agent ends the call (end_call) or transfers it (transfer, or {type: transfer, to})'),
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

export const callerSchema = z
  .strictObject({
    voice: z.string().min(1).optional().describe('voice of say steps (a built-in voice such as rms, slt, awb, kal16, or a voice model id)'),
    gap_ms: ms.optional().describe('how long the caller waits after the agent stops before speaking'),
  })
  .describe('the simulated caller');

export const llmSchema = z.strictObject({
  url: z.url().describe('base URL of an OpenAI-compatible API, ending in /v1'),
  model: z.string().min(1).optional(),
  instructions: z.string().min(1).optional().describe('a text file with the system prompt (relative to the scenario file)'),
  key: z.string().optional().describe('API key; $OPENAI_API_KEY when absent'),
  greeting: z.string().optional().describe('the agent\'s first line ("" for none)'),
  tools: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe('tools the model may call: a YAML or JSON file (relative to the scenario file) or `name: {description, parameters, http: {url, method}}`'),
});

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
    steps: z.array(stepSchema).min(1),
    expect: callExpectationSchema.optional(),
  })
  .superRefine(oneAgent);

export const scenarioFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    ...settings,
    scenarios: z.array(scenarioSchema).min(1),
  })
  .superRefine(oneAgent)
  .describe('A Shoal scenario file: simulated callers put through an agent by `shoal test`.');

export type ScenarioFile = z.infer<typeof scenarioFileSchema>;
export type ScenarioSpec = z.infer<typeof scenarioSchema>;
export type Step = z.infer<typeof stepSchema>;
export type StepExpectation = z.infer<typeof stepExpectationSchema>;
export type CallExpectation = z.infer<typeof callExpectationSchema>;
export type Conditions = z.infer<typeof conditionsSchema>;
export type Line = NonNullable<ScenarioSpec['line']>;
export type LlmSettings = z.infer<typeof llmSchema>;

/** The JSON Schema of scenario files, as committed in schemas/scenario.schema.json. */
export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(scenarioFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
