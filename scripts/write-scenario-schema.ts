// Writes schemas/scenario.schema.json from the zod schema of scenario files (src/testing/schema.ts).
// Run after changing that schema: npx tsx scripts/write-scenario-schema.ts (test/testing/testing-load.test.ts checks it).
import { writeFileSync } from 'node:fs';
import { scenarioSchemaFile, scenarioSchemaText } from '../src/testing/schema-file.js';

writeFileSync(scenarioSchemaFile, scenarioSchemaText());
process.stdout.write(`wrote ${scenarioSchemaFile}\n`);
