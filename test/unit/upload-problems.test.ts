// uploadProblems: files failing alike (missing S3 credentials fail every file the same way) are one log line.
import { describe, expect, it } from 'vitest';
import { uploadProblems, type UploadResult } from '../../src/hosting/s3.js';

const result = (failed: UploadResult['failed']): UploadResult => ({ target: 's3://rates/exports/', uploaded: [], unchanged: [], failed, warnings: [] });
const noCredentials = 'CredentialsProviderError: Could not load credentials from any providers';

describe('uploadProblems', () => {
  it('missing credentials: one line for the build, naming every file', () => {
    const files = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'];
    expect(uploadProblems(result(files.map((file) => ({ file, url: `s3://rates/exports/${file}`, error: noCredentials }))))).toEqual([
      `s3 upload of 3 files (affiliatefile.xml, parserfile.xml, reffile.xml) to s3://rates/exports/ failed (local files unaffected, retried on the next build): ${noCredentials}`,
    ]);
  });

  it('different reasons stay apart, each with its file', () => {
    expect(
      uploadProblems(result([
        { file: 'a.xml', url: 's3://rates/exports/a.xml', error: 'SlowDown' },
        { file: 'b.xml', url: 's3://rates/exports/b.xml', error: 'AccessDenied' },
      ])),
    ).toEqual([
      's3 upload of a.xml to s3://rates/exports/a.xml failed (local files unaffected, retried on the next build): SlowDown',
      's3 upload of b.xml to s3://rates/exports/b.xml failed (local files unaffected, retried on the next build): AccessDenied',
    ]);
  });
});
