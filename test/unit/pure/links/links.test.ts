// The links of an export's items and the rules that judge one fetched link (src/pure/links/links.ts).
import { describe, expect, it } from 'vitest';
import { itemLinks, judgeLink, notWebLink } from '../../../../src/pure/links/links.js';

describe('itemLinks', () => {
  it('reads <url> of each item, entities and CDATA undone, one entry per link with its items', () => {
    const xml = `<rates>
  <item><from>BTC</from><to>SBERRUB</to><url>https://x.example/?a=1&amp;b=2</url></item>
  <item><from>BTC</from><to>CASHRUB</to><city>MSK</city><url><![CDATA[https://x.example/?a=1&b=2]]></url></item>
  <item><from>BTC</from><to>USDTTRC20</to></item>
</rates>`;
    expect(itemLinks(xml)).toEqual([
      { url: 'https://x.example/?a=1&b=2', items: ['BTC → SBERRUB', 'BTC → CASHRUB in MSK'] },
    ]);
  });
});

describe('judgeLink', () => {
  const page = (chain: string[], head = '<title>Exchange</title>', status = 200) =>
    judgeLink({ chain, status, head, ms: 5 });

  it('a 2xx page is good, also after redirects that do not end at home', () => {
    expect(page(['https://x.example/ex?f=BTC'])).toEqual({ ok: true });
    expect(page(['https://x.example/ex?f=BTC', 'https://x.example/en/ex?f=BTC'])).toEqual({ ok: true });
    expect(page(['https://x.example/'])).toEqual({ ok: true });
  });

  it('names a status, a redirect home, a login page and an error', () => {
    expect(page(['https://x.example/a'], '', 410).problem).toBe('http-status');
    expect(page(['https://x.example/?f=BTC', 'https://x.example/']).problem).toBe('home-redirect');
    expect(page(['https://x.example/a', 'https://x.example/signin']).problem).toBe('login-page');
    expect(page(['https://x.example/a'], '<title>Вход в личный кабинет</title>').problem).toBe('login-page');
    expect(page(['https://x.example/a'], "<input type='password'>").problem).toBe('login-page');
    expect(judgeLink({ chain: ['https://x.example/a'], error: 'ECONNREFUSED', ms: 1 }).problem).toBe('error');
  });
});

describe('notWebLink', () => {
  it('names what a link is when it is no http(s) URL, and judgeLink fails it as such', () => {
    expect(notWebLink('https://x.example/a')).toBeUndefined();
    expect(notWebLink('HTTP://x.example/a')).toBeUndefined();
    expect(['data:text/html,x', 'file:///etc/passwd', 'javascript:alert(1)', 'ftp://x/'].map(notWebLink)).toEqual([
      'its scheme is data:, not http(s)',
      'its scheme is file:, not http(s)',
      'its scheme is javascript:, not http(s)',
      'its scheme is ftp:, not http(s)',
    ]);
    expect(notWebLink('/exchange?from=BTC')).toBe('not an absolute http(s) URL');
    expect(
      judgeLink({ chain: ['https://x.example/a', 'file:///x'], refused: 'its scheme is file:, not http(s)', ms: 1 }),
    ).toEqual({
      ok: false,
      problem: 'not-http',
      detail: 'its scheme is file:, not http(s) (after 1 redirect(s), at file:///x)',
    });
  });
});
