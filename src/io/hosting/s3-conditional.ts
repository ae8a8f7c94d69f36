// Conditional writes to S3 (`If-None-Match: *`, `If-Match: <ETag>`): the store itself refuses a write whose condition
// no longer holds (412), which fences a stale writer where no lock can. Shared by the uploads of the exports (s3.ts)
// and the `ha.lock.s3` lease (src/io/ha/s3.ts).

/** Create only (`If-None-Match: *`), or replace only the version this writer last saw (`If-Match`). */
export type WriteCondition = { ifNoneMatch: '*' } | { ifMatch: string };

export const statusOf = (error: unknown): number | undefined =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** 412: the condition did not hold; 409 (AWS: ConditionalRequestConflict): another conditional write won the race. */
export const conditionRefused = (error: unknown): boolean => statusOf(error) === 412 || statusOf(error) === 409;

/** 501 (NotImplemented): a store that does not take conditional writes at all. */
export const conditionUnsupported = (error: unknown): boolean =>
  statusOf(error) === 501 || (error as { name?: string }).name === 'NotImplemented';

/** The condition for a write over the version `etag` (undefined: there is none, so create only). */
export const over = (etag: string | undefined): WriteCondition =>
  etag === undefined ? { ifNoneMatch: '*' } : { ifMatch: etag };

/**
 * How a store compares `If-Match`: AWS and most with the ETag as it is given (quoted), Ceph RGW 16 with it bare,
 * without its quotes. Learnt once, on a refusal while the object still carries that very ETag, then kept.
 */
export class EtagForm {
  private bare = false;

  /** The SDK's fields for `condition`, in this store's form. */
  fields(condition: WriteCondition): { IfNoneMatch: '*' } | { IfMatch: string } {
    if ('ifNoneMatch' in condition) return { IfNoneMatch: '*' };
    return { IfMatch: this.bare ? condition.ifMatch.replaceAll('"', '') : condition.ifMatch };
  }

  /**
   * After the store refused `condition`: true when the object's ETag now (`current`, asked only when it may tell)
   * is the very ETag asked for, so the store wants it bare (the same condition again, in that form, still fences);
   * anything else, and any refusal once the form is learnt, stands.
   */
  async learn(condition: WriteCondition, current: () => Promise<string | undefined>): Promise<boolean> {
    if (this.bare || !('ifMatch' in condition) || (await current()) !== condition.ifMatch) return false;
    this.bare = true;
    return true;
  }
}

/** What putOver needs of a store: the write itself, a look at the object's version, and the writer's right to write. */
export interface ConditionalPut {
  /** The write, with the condition's fields; its new ETag. */
  put(fields: { IfNoneMatch: '*' } | { IfMatch: string }): Promise<string | undefined>;
  /** The object's ETag now (HEAD); undefined when there is none. */
  current(): Promise<string | undefined>;
  /** Asked again before a write over another writer's version (a warm standby's lock): a reason not to write. */
  confirm(): Promise<string | undefined>;
}

/**
 * Put an object over the version this writer last saw (`known`; none: create only). The store refuses it when another
 * writer replaced the object since (an old leader's late upload after a pause, a hand edit): then the version now is
 * read, the right to write confirmed after that read, and the write made over that version, so that another write
 * landing in between is refused in turn. A second refusal of that kind is given up (the next build tries again).
 */
export async function putOver(
  known: string | undefined,
  form: EtagForm,
  store: ConditionalPut,
): Promise<{ etag: string | undefined } | { refused: string }> {
  let condition = over(known);
  let repaired = false;
  for (;;) {
    try {
      return { etag: await store.put(form.fields(condition)) };
    } catch (error) {
      // If-Match on an object that is gone: 404 on some stores, 412 on others.
      if (!conditionRefused(error) && !('ifMatch' in condition && statusOf(error) === 404)) throw error;
      let now: Promise<string | undefined> | undefined;
      const current = () => (now ??= store.current());
      if (await form.learn(condition, current)) continue;
      if (repaired) return { refused: 'another writer replaced it again while this one uploaded' };
      const etag = await current();
      const refused = await store.confirm();
      if (refused !== undefined) return { refused };
      condition = over(etag);
      repaired = true;
    }
  }
}
