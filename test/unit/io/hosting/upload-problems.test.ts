// uploadProblems: files failing alike (missing S3 credentials fail every file the same way) are one log line.
import { describe, expect, it } from 'vitest';
import { uploadProblems, type UploadResult } from '../../../../src/io/hosting/s3-report.js';

const result = (failed: UploadResult['failed']): UploadResult => ({
  target: 's3://rates/exports/',
  uploaded: [],
  unchanged: [],
  removed: [],
  failed,
  warnings: [],
});
const noCredentials = 'CredentialsProviderError: Could not load credentials from any providers';

describe('uploadProblems', () => {
  it('missing credentials: one line for the build, naming every file', () => {
    const files = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'];
    expect(
      uploadProblems(
        result(
          files.map((file) => ({
            file,
            url: `s3://rates/exports/${file}`,
            error: noCredentials,
            action: 'upload' as const,
          })),
        ),
      ),
    ).toEqual([
      `s3 upload of 3 files (affiliatefile.xml, parserfile.xml, reffile.xml) to s3://rates/exports/ failed (local files unaffected, retried on the next build): ${noCredentials}`,
    ]);
  });

  it('different reasons stay apart, each with its file', () => {
    expect(
      uploadProblems(
        result([
          { file: 'a.xml', url: 's3://rates/exports/a.xml', error: 'SlowDown', action: 'upload' },
          { file: 'b.xml', url: 's3://rates/exports/b.xml', error: 'AccessDenied', action: 'upload' },
        ]),
      ),
    ).toEqual([
      's3 upload of a.xml to s3://rates/exports/a.xml failed (local files unaffected, retried on the next build): SlowDown',
      's3 upload of b.xml to s3://rates/exports/b.xml failed (local files unaffected, retried on the next build): AccessDenied',
    ]);
  });

  it('a failed removal keeps its own line, apart from uploads failing for the same reason', () => {
    expect(
      uploadProblems(
        result([
          { file: 'a.xml', url: 's3://rates/exports/a.xml', error: 'AccessDenied', action: 'upload' },
          { file: 'old.xml', url: 's3://rates/exports/old.xml', error: 'AccessDenied', action: 'removal' },
        ]),
      ),
    ).toEqual([
      's3 upload of a.xml to s3://rates/exports/a.xml failed (local files unaffected, retried on the next build): AccessDenied',
      's3 removal of s3://rates/exports/old.xml (old.xml is no longer declared) failed (retried on the next build): AccessDenied',
    ]);
  });
});
