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
  [billing]=src/service/store/account-gate.ts
  [codecs]=src/audio/g711.ts,src/audio/pcm.ts
  [interruption]=src/agent/interruption.ts
  [tts-text]=src/service/tts/text-plan.ts,src/engines/text/chunker.ts
  [pipeline]=src/pipeline/chunk-text.ts,src/pipeline/reframe.ts,src/pipeline/utterances.ts
  [telephony]=src/transports/telephony/media-stream-messages.ts
)
declare -A tests=(
  [modes]=test/agent-modes.test.ts
  [tracing]=test/tracing-traceparent.test.ts,test/agent-service-stt-trace.test.ts,test/agent-service-stt.test.ts
  [billing]=test/service-prices.test.ts
  [codecs]=test/audio-g711.test.ts,test/audio-pcm.test.ts
  [interruption]=test/agent-barge-in.test.ts,test/agent-interruption.test.ts
  [tts-text]=test/engines-text.test.ts,test/service-tts-speakers.test.ts
  [pipeline]=test/pipeline-operators.test.ts
  [telephony]=test/transport-telephony.test.ts
)
order=(modes tracing billing codecs interruption tts-text pipeline telephony)

for group in "${@:-${order[@]}}"; do
  start=$(date +%s)
  MUTATION_TESTS=${tests[$group]} npx stryker run stryker.config.mjs --mutate "${mutate[$group]}" \
    --incrementalFile "reports/groups/$group-incremental.json" > "reports/groups/$group.log" 2>&1
  echo "{\"group\":\"$group\",\"elapsed_s\":$(( $(date +%s) - start )),\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}" | tee -a reports/groups/timings.jsonl
  cp reports/mutation/mutation.json "reports/groups/$group.json"
done
