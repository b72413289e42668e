#!/usr/bin/env bash
# Mutation score per core module, each module against its own tests (MUTATION_TESTS), one after another:
#   bash scripts/mutation-by-module.sh [group...]
# Writes reports/groups/<group>.json (Stryker's JSON report), <group>.log and one timing line per group in
# reports/groups/timings.jsonl; read a group with `node scripts/mutation-survivors.mjs "" reports/groups/<group>.json`.
set -u
cd "$(dirname "$0")/.."
mkdir -p reports/groups

declare -A mutate=(
  [modes]=src/agent/modes.ts
  [tracing]=src/tracing/traceparent.ts,src/agent/stt/segment-service-stt.ts
  [agent-tracing]=src/agent/tracing.ts
  [billing]=src/service/store/account-gate.ts,src/service/routes/wallet.ts
  [codecs]=src/audio/g711.ts,src/audio/pcm.ts
  [frames]=src/audio/frame.ts,src/pipeline/resample.ts,src/pipeline/vad.ts
  [interruption]=src/agent/interruption.ts
  [turn-taking]=src/agent/utterance-state.ts,src/agent/reply.ts,src/agent/call-timers.ts
  [playout]=src/pipeline/playout.ts
  [session]=src/agent/call-session.ts,src/agent/caller-input.ts,src/agent/agent-speaking.ts,src/agent/agent-listening.ts
  [tts-text]=src/service/tts/text-plan.ts,src/engines/text/chunker.ts
  [synthesis]=src/service/tts/synthesis.ts
  [pipeline]=src/pipeline/chunk-text.ts,src/pipeline/reframe.ts,src/pipeline/utterances.ts
  [telephony]=src/transports/telephony/media-stream-messages.ts
  [telephony-endpoint]=src/transports/telephony/telephony-endpoint.ts
  [chunk-text]=src/pipeline/chunk-text.ts
  [text-plan]=src/service/tts/text-plan.ts
  [agent-support]=src/agent/resolve-options.ts,src/pipeline/work.ts,src/pipeline/clock.ts
  [scripted]=plugins/scripted/script-state-machine.ts,plugins/scripted/scripted-dialogue.ts,plugins/scripted/script-expectations.ts
  [llm-messages]=plugins/openai/chat-messages.ts
  [telephone-band]=src/agent/stt/call-band.ts,src/agent/stt/segment-service-stt.ts
  [band-watch]=src/engines/pocketsphinx/band-watch.ts,src/engines/pocketsphinx/utterance-band.ts,src/audio/low-pass.ts
  [expected-search]=src/engines/pocketsphinx/expected-search.ts,src/engines/pocketsphinx/grammar.ts,plugins/scripted/digit-strings.ts
)
agent_doubles=test/agent/agent-barge-in.test.ts,test/agent/agent-interruption.test.ts,test/agent/agent-call-timers.test.ts,test/agent/agent-virtual-clock.test.ts,test/agent/agent-modes.test.ts,test/agent/agent-llm-turns.test.ts,test/agent/agent-speech-fallback.test.ts,test/agent/agent-reply-tools.test.ts,test/engines/listening-expectations.test.ts
declare -A tests=(
  [modes]=test/agent/agent-modes.test.ts
  [tracing]=test/tracing/tracing-traceparent.test.ts,test/agent/agent-service-stt-trace.test.ts,test/agent/agent-service-stt.test.ts
  [agent-tracing]=test/agent/agent-tracing-context.test.ts,test/agent/agent-service-stt-trace.test.ts
  [billing]=test/service/service-prices.test.ts,test/service/service-wallet.test.ts,test/service/service-wallet-route.test.ts,test/service/service-billing-endpoints.test.ts
  [codecs]=test/audio/audio-g711.test.ts,test/audio/audio-pcm.test.ts
  [frames]=test/pipeline/pipeline-frames.test.ts,test/audio/frame-helpers.test.ts,test/pipeline/pipeline-operators.test.ts
  [interruption]=test/agent/agent-barge-in.test.ts,test/agent/agent-interruption.test.ts
  [turn-taking]=test/agent/agent-utterance-state.test.ts,test/agent/agent-reply.test.ts,test/agent/agent-call-timers.test.ts,test/agent/agent-barge-in.test.ts,test/agent/agent-interruption.test.ts
  [playout]=test/pipeline/pipeline-playout.test.ts,test/pipeline/pipeline-operators.test.ts
  [session]=$agent_doubles,test/agent/agent-session-events.test.ts,test/agent/agent-session-turns.test.ts,test/agent/agent-session-preemptive.test.ts,test/agent/agent-answered-by.test.ts
  [tts-text]=test/engines/engines-text.test.ts,test/engines/engines-text-chunker.test.ts,test/service/service-tts-text-plan.test.ts
  [synthesis]=test/service/service-tts-synthesis.test.ts,test/service/service-tts-speakers.test.ts
  [pipeline]=test/pipeline/pipeline-operators.test.ts,test/pipeline/pipeline-utterances.test.ts
  [telephony]=test/transports/telephony-media-stream-messages.test.ts,test/transports/transport-telephony.test.ts
  [telephony-endpoint]=test/transports/transport-telephony.test.ts,test/transports/transport-telephony-refusals.test.ts
  [chunk-text]=test/pipeline/pipeline-operators.test.ts
  [text-plan]=test/service/service-tts-text-plan.test.ts
  [agent-support]=test/agent/agent-resolve-options.test.ts,test/pipeline/pipeline-work-clock.test.ts,test/agent/agent-modes.test.ts,test/agent/agent-virtual-clock.test.ts
  [scripted]=test/plugins/dialogue-scripted-flow.test.ts,test/plugins/dialogue-scripted-confirmation.test.ts,test/plugins/dialogue-script-validation.test.ts,test/engines/listening-expectations.test.ts
  [llm-messages]=test/plugins/plugin-openai.test.ts,test/agent/agent-reply-tools.test.ts
  [telephone-band]=test/agent/agent-asr-per-call.test.ts,test/agent/agent-service-stt.test.ts,test/agent/agent-service-stt-trace.test.ts
  [band-watch]=test/engines/engines-band-watch.test.ts,test/audio/audio-low-pass.test.ts
  [expected-search]=test/engines/engines-expected-search.test.ts,test/engines/listening-expectations.test.ts
)
# Extra Stryker options of a group. The codecs build their encode tables once, on first use: with per-test
# coverage only the test that happened to build the table counted as covering the encoders, so their mutants
# run against every test of the group instead. Code that runs once per process (the codecs' tables, the
# media-stream message schemas built at import) is only mutated in a test process started for that mutant:
# `--maxTestRunnerReuse 1` starts one per mutant (slower, so only for these small groups).
declare -A extra=(
  [codecs]="--coverageAnalysis all --maxTestRunnerReuse 1"
  [telephony]="--maxTestRunnerReuse 1"
)
order=(codecs pipeline tts-text telephony turn-taking playout frames billing synthesis telephony-endpoint agent-tracing modes tracing interruption agent-support scripted llm-messages telephone-band band-watch expected-search)

for group in "${@:-${order[@]}}"; do
  start=$(date +%s)
  # Niced and one test process at a time: the run shares the machine with other work.
  MUTATION_TESTS=${tests[$group]} nice -n 19 npx stryker run stryker.config.mjs --mutate "${mutate[$group]}" \
    --concurrency "${MUTATION_CONCURRENCY:-1}" ${extra[$group]:-} --incrementalFile "reports/groups/$group-incremental.json" > "reports/groups/$group.log" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - start ))
  if [ "$status" -ne 0 ]; then
    echo "{\"group\":\"$group\",\"failed\":$status,\"log\":\"reports/groups/$group.log\"}" | tee -a reports/groups/timings.jsonl
    continue
  fi
  score=$(grep -E '^All files' "reports/groups/$group.log" | awk -F'|' '{gsub(/ /, "", $2); print $2}')
  # The report also carries files of earlier runs (incremental): score only the group's own modules.
  modules=$(node -e '
    const report = require("./reports/mutation/mutation.json");
    const wanted = process.argv[1].split(",");
    const out = {};
    for (const [file, { mutants }] of Object.entries(report.files)) {
      if (!wanted.some((w) => new RegExp("^" + w.replaceAll(".", "\\.").replaceAll("*", ".*") + "$").test(file))) continue;
      const counted = mutants.filter((m) => ["Killed", "Timeout", "Survived", "NoCoverage"].includes(m.status));
      const detected = counted.filter((m) => m.status === "Killed" || m.status === "Timeout").length;
      out[file] = counted.length ? Number(((100 * detected) / counted.length).toFixed(1)) : null;
    }
    process.stdout.write(JSON.stringify(out));' "${mutate[$group]}")
  echo "{\"group\":\"$group\",\"score\":\"$score\",\"modules\":$modules,\"elapsed_s\":$elapsed,\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}" | tee -a reports/groups/timings.jsonl
  cp reports/mutation/mutation.json "reports/groups/$group.json"
done
