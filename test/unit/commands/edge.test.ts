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

  it('refuses a --prefix with a control character, before anything is printed (a newline would start a directive)', async () => {
    const dir = (await project()).dir;
    for (const prefix of ['/r\ninclude /etc/passwd;\n', '/r\rx', '/r\u0000', '/r\u2028x']) {
      const { code, stdout, stderr } = await runRatefile(['edge', 'nginx', '--prefix', prefix], dir);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^ratefile: --prefix: expected a path of letters, digits, /);
      expect(stderr).not.toContain('\ninclude');
    }
  });

  it('refuses a --prefix an nginx or Cloudflare path cannot hold literally, and takes a plain one', async () => {
    const dir = (await project()).dir;
    for (const prefix of ['/r x/', '/r;x/', '/r{x}', '/../etc', '/r/./x', '/r?x', '/r#x', '/r%0ax', '/r"x', '/$r/']) {
      const { code, stderr } = await runRatefile(['edge', 'cloudflare', '--prefix', prefix], dir);
      expect(code, prefix).toBe(2);
      expect(stderr).toContain('--prefix: expected a path of letters, digits');
    }
    const { code, stdout } = await runRatefile(['edge', 'nginx', '--prefix', '/api/v1.2/rates_~-'], dir);
    expect(code).toBe(0);
    expect(stdout).toContain('[/]api[/]v1[.]2[/]rates_~-[/]parserfile[.]xml');
  });

  it('refuses a --host that is no host name (a newline, a quote that would end the Rules literal)', async () => {
    const dir = (await project()).dir;
    for (const host of ['rates.example.com\nNote: all good', 'a" or ip.src ne 1.1.1.1 or "', 'rates example.com', '']) {
      const { code, stdout, stderr } = await runRatefile(['edge', 'cloudflare', '--host', host], dir);
      expect(code, host).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^ratefile: --host: expected a host name like "rates\.example\.com", got /);
    }
  });

  it('refuses a monitor whose user agent holds a control character: it would reach the recipe raw', async () => {
    const made = await makeProject({
      'ratefile.config.yaml': `${sampleConfig}monitors:\n  robot: { agent: "Robot\\ninclude /etc/passwd;" }\n`,
    });
    projects.push(made);
    for (const edge of ['nginx', 'cloudflare']) {
      const { code, stdout, stderr } = await runRatefile(['edge', edge], made.dir);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('monitors.robot.agent: expected no control characters');
    }
  });

  it("refuses a config file whose name holds a newline: the recipe's first line names it", async () => {
    const made = await makeProject({ 'r\ninclude x;.yaml': sampleConfig });
    projects.push(made);
    const { code, stdout, stderr } = await runRatefile(['edge', 'nginx', '--config', 'r\ninclude x;.yaml'], made.dir);
    expect(stderr).toContain("the config file's name: expected no control characters");
    expect([code, stdout]).toEqual([2, '']);
  });

  it('refuses a Cache-Control whose quoted value holds a control character, when the config is loaded', async () => {
    const made = await makeProject({
      'ratefile.config.yaml': `${sampleConfig}server: { headers: { Cache-Control: "private=\\"a\\nb\\"" } }\n`,
    });
    projects.push(made);
    const { code, stdout, stderr } = await runRatefile(['edge', 'nginx'], made.dir);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('server.headers.Cache-Control');
  });

  it('refuses an edge it does not know', async () => {
    const { code, stderr } = await runRatefile(['edge', 'akamai'], (await project()).dir);
    expect(code).toBe(2);
    expect(stderr).toMatch(/'akamai' is invalid.*nginx, cloudflare/);
  });
});
