import { fileURLToPath } from 'node:url';
import { scenarioJsonSchema } from './schema.js';

/** Where the JSON Schema of scenario files is committed (and shipped in the package). */
export const scenarioSchemaFile = fileURLToPath(new URL('../../schemas/scenario.schema.json', import.meta.url.replace('/dist/src/', '/src/')));

/** The committed file's text: the schema with an id and title, two-space indented. */
export function scenarioSchemaText(): string {
  const schema = { title: 'Shoal scenario file', ...scenarioJsonSchema() };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
