// Template file names with dots (`rates.v2.yaml`, `aff-eref-1.1.yaml`): published as <name>.xml by the real binary
// (validate, build, start serving it, removed once its template goes), and a YAML file whose name cannot be an export's a config error naming it.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { projectsPerTest } from '../../support/project.js';
import { xmlErrors } from '../../support/xml.js';

const project = projectsPerTest();

afterEach(async () => {
  await stopAll();
});

/** `ratefile …args` in `cwd` to its end: exit code and output. */
async function ratefile(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnRatefile(args, { cwd });
  const exit = await proc.exited;
  return { code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() };
}

const dotted = {
  'templates/rates.v2.yaml': 'include: { tags: [ref] }\n',
  'templates/aff-eref-1.1.yaml': 'format: eref-1.1\n',
};

describe('templates whose names have dots', () => {
  it('validate lists their exports, build publishes them and start serves them as application/xml', async () => {
    const made = await project(dotted);
    const validated = await ratefile(['validate', '--config', made.configPath], made.dir);
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
    expect(validated.stdout).toContain('5 exports');
    expect(validated.stdout).toContain('rates.v2.xml');
    expect(validated.stdout).toContain('aff-eref-1.1.xml');

    const built = await ratefile(['build', '--config', made.configPath, '--out', 'public'], made.dir);
    expect(built.code, built.stderr).toBe(0);
    const files = await readdir(join(made.dir, 'public'));
    expect(files).toEqual(expect.arrayContaining(['rates.v2.xml', 'aff-eref-1.1.xml']));
    const rates = await readFile(join(made.dir, 'public', 'rates.v2.xml'), 'utf8');
    expect(await xmlErrors(rates)).toEqual([]);
    expect(rates).toContain('<from>BTC</from>');
    // The state record lists them, so a later build may remove them when their templates go.
    const state = JSON.parse(await readFile(join(made.dir, '.ratefile', 'exports.json'), 'utf8')) as unknown;
    expect(JSON.stringify(state)).toContain('rates.v2.xml');
    expect(JSON.stringify(state)).toContain('aff-eref-1.1.xml');

    const service = spawnRatefile(
      ['start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1', '--out', 'public'],
      { cwd: made.dir },
    );
    const base = await waitForServing(service);
    for (const file of ['rates.v2.xml', 'aff-eref-1.1.xml']) {
      const response = await fetch(new URL(file, base));
      const body = await response.text();
      expect(response.status, `${file}: ${body}`).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/xml');
      expect(body).toContain('<rates>');
    }
    await service.stop('SIGTERM');

    // Its template gone, the next build removes the export by the name the state recorded.
    await rm(join(made.dir, 'templates', 'rates.v2.yaml'));
    const rebuilt = await ratefile(['build', '--config', made.configPath, '--out', 'public'], made.dir);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr + rebuilt.stdout).toContain('removed rates.v2.xml');
    expect(await readdir(join(made.dir, 'public'))).not.toContain('rates.v2.xml');
  });

  it('a YAML file whose name cannot name an export is a config error naming the file, never skipped', async () => {
    const made = await project({
      'templates/rates v2.yaml': 'description: a space in the name\n',
      'templates/_draft.yml': 'markup: 1%\n',
    });
    const validated = await ratefile(['validate', '--config', made.configPath], made.dir);
    expect(validated.code).toBe(2);
    expect(validated.stderr).toContain('templates/rates v2.yaml: expected a template file name');
    expect(validated.stderr).toContain('templates/_draft.yml: expected a template file name');
    const built = await ratefile(['build', '--config', made.configPath, '--out', 'public'], made.dir);
    expect(built.code).toBe(2);
    expect(built.stderr).toContain('templates/rates v2.yaml');
  });
});
