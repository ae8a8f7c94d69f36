// loadConfig: read ratefile.config.yaml and its templates, report every problem at once, return the normalized model.
import { dirname, relative, resolve, sep } from 'node:path';
import { loadTemplates } from '../exports/template.js';
import type { Config } from '../../model/config.js';
import { configSchema } from './schema.js';
import { quoteValue } from '../../base/errors.js';
import { deepFreeze } from '../../base/freeze.js';
import { configError, formatProblem, readYamlFile, validateYaml } from '../../base/config/yaml.js';
import { defaultConfigFile } from '../../base/config/defaults.js';
import { readLiveCodes } from '../state/live-codes.js';
import { crossCheck, isRecord } from './cross-check.js';
import { normalize } from './normalize.js';

export { defaultConfigFile };

/** Read and validate the config file and its templates; throws E_CONFIG listing every problem found. */
export async function loadConfig(path: string = defaultConfigFile, cwd: string = process.cwd()): Promise<Config> {
  const file = resolve(cwd, path);
  const label = relative(cwd, file) || file;
  const yaml = await readYamlFile(file, label);
  const { data, problems } = validateYaml(yaml, configSchema);
  const stateText = isRecord(yaml.data) && typeof yaml.data.state === 'string' ? yaml.data.state : '.ratefile';
  const checked = crossCheck(yaml.data, await readLiveCodes(resolve(dirname(file), stateText)));
  if (data) {
    // The state folder holds the jump guard's memory and the status: never served to the public.
    const [state, output] = [resolve(dirname(file), data.state), resolve(dirname(file), data.output)];
    if (state === output || state.startsWith(`${output}${sep}`)) {
      checked.problems.push({
        path: ['state'],
        message: `expected a folder outside the output folder ${data.output}, got ${quoteValue(data.state)}`,
      });
    }
  }
  const lines = [...problems, ...checked.problems].map((problem) => formatProblem(yaml, problem));

  // Templates are checked even when the config has problems, so one run shows everything to fix.
  const codes = new Set(isRecord(yaml.data) && isRecord(yaml.data.currencies) ? Object.keys(yaml.data.currencies) : []);
  const dir = dirname(file);
  const templatesDir = resolve(
    dir,
    data?.templates ??
      (isRecord(yaml.data) && typeof yaml.data.templates === 'string' ? yaml.data.templates : 'templates'),
  );
  const { templates, problems: templateProblems } = await loadTemplates(templatesDir, codes, cwd);

  // Each watched export must be one the templates declare: a URL for a file never published cannot be judged.
  const declared = new Set(templates.map((template) => template.file));
  const shown = templates.filter((template) => !template.private).map((template) => template.file);
  for (const file of Object.keys(data?.watch?.exports ?? {}))
    if (templateProblems.length === 0 && !declared.has(file))
      lines.push(
        formatProblem(yaml, {
          path: ['watch', 'exports', file],
          // A private export's name is a secret: never listed.
          message: `expected an export a template declares (${shown.join(', ')}), got ${quoteValue(file)}`,
        }),
      );
  if (lines.length > 0 || templateProblems.length > 0 || !data) {
    throw configError(label, [...lines, ...templateProblems]);
  }
  // Frozen deeply (src/base/freeze.ts): a step that writes into the loaded config throws instead of staling the caches.
  return deepFreeze({
    ...normalize(data, file),
    exports: templates,
    warnings: checked.warnings.map((warning) => formatProblem(yaml, warning)),
  });
}
