// `ratefile edge nginx|cloudflare` in-process on a sample project with monitors: the recipes name the config's
// monitors, export paths and caching headers; a bad choice is a usage error.
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject, sampleConfig, type Project } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const projects: Project[] = [];
afterEach(async () => {
  await Promise.all(projects.splice(0).map((p) => p.remove()));
});

async function project(): Promise<Project> {
  const made = await makeProject({
    'ratefile.config.yaml': `${sampleConfig}monitors:\n  bestchange: { agent: "/^BestChange/", address: 162.19.29.225 }\n  exchangesumo: { address: 46.4.58.77 }\nserver: { headers: { CDN-Cache-Control: "no-store" } }\n`,
  });
  projects.push(made);
  return made;
}

describe('ratefile edge', () => {
  it('cloudflare --json: the rules from the monitors, the exports and server.headers', async () => {
    const { code, stdout, stderr } = await runRatefile(
      ['edge', 'cloudflare', '--json', '--host', 'rates.example.com'],
      (await project()).dir,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rules = JSON.parse(stdout) as { skip: string; exports: string; headers: Record<string, string> };
    expect(rules.skip).toBe(
      '(http.host eq "rates.example.com" and http.request.uri.path in {"/affiliatefile.xml" "/parserfile.xml" "/reffile.xml"} and ip.src in {162.19.29.225 46.4.58.77})',
    );
    expect(rules.headers).toEqual({ 'Cache-Control': 'no-cache', 'CDN-Cache-Control': 'no-store' });
  });

  it('nginx: both parts, with the export paths under --prefix', async () => {
    const { code, stdout } = await runRatefile(['edge', 'nginx', '--prefix', '/rates'], (await project()).dir);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^# ratefile edge nginx: generated from ratefile\.config\.yaml \(monitors: bestchange, exchangesumo;/,
    );
    expect(stdout).toContain('[/]rates[/]parserfile[.]xml');
    expect(stdout).toContain('add_header CDN-Cache-Control "no-store" always;');
  });

  it('refuses an edge it does not know', async () => {
    const { code, stderr } = await runRatefile(['edge', 'akamai'], (await project()).dir);
    expect(code).toBe(2);
    expect(stderr).toMatch(/'akamai' is invalid.*nginx, cloudflare/);
  });
});
