import { loadScenarios, ScenarioRunner } from './src/testing/index.js';
const scenarios = await loadScenarios(process.argv[2]!);
const runner = await ScenarioRunner.open();
for (let i = 0; i < 2; i++) for (const s of scenarios) {
  const c0 = process.cpuUsage();
  const r = await runner.run(s);
  const c = process.cpuUsage(c0);
  console.log(s.name, 'call', r.durationMs, 'wall', Math.round(r.wallMs), 'cpu', Math.round((c.user + c.system) / 1000), 'speedup', r.speedup.toFixed(1), r.passed);
}
await runner.close();
