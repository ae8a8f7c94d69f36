// A leader's files in place under `ha:`: each confirmed on the lock (and by the build's age) right before it is put
// there (each rename, each S3 upload); src/io/ha/placed-watch.ts watches them after and puts them back when another
// writer's file lands over one (an old leader that resumed after a pause: no lock fences a shared folder).
import { basename } from 'node:path';
import { PlaceRefused } from '../build/publish.js';
import { lockTiming } from '../../pure/ha/role.js';
import type { PublishGate } from './standby.js';

/** What a fence needs besides the lock: the wall clock and the schedule's period. */
export interface FenceClock {
  now: () => Date;
  periodMs: number;
}

/**
 * Why the file of the build made at `at` may not be put in place now, or undefined. The lock is asked on its
 * connection first, then the build's age against the wall clock: a build a period old or more is never put in place,
 * as another instance may have taken over and published since (a pause of this process between the two is a pause
 * before the age is read, so it counts).
 */
async function refusal(gate: PublishGate, at: Date, clock: FenceClock): Promise<PlaceRefused | undefined> {
  if (!(await gate.stillHolds())) return new PlaceRefused('this instance no longer holds the lock', true);
  const ageMs = clock.now().getTime() - at.getTime();
  if (ageMs < clock.periodMs) return undefined;
  return new PlaceRefused(
    `the build of ${at.toISOString()} is ${ageMs} ms old, a period (${clock.periodMs} ms) or more: another instance may have published since`,
    false,
  );
}

/** The `beforePlace` of a publish: the lock confirmed, and the build's age checked, right before each rename. */
export function placeFence(gate: PublishGate, at: Date, clock: FenceClock): (path: string) => Promise<void> {
  return async (path) => {
    const refused = await refusal(gate, at, clock);
    if (refused) throw new PlaceRefused(`ha: ${basename(path)} not put in place: ${refused.message}`, refused.lost);
  };
}

/**
 * The `beforePlace` of a leader putting its own files back (src/io/ha/placed-watch.ts): they are its last publish,
 * whatever their build's age, so what counts is the lock, confirmed right before each rename, and that the answer
 * came within the lock's idle timeout of the question: the lock frees no sooner after the check, so another instance
 * cannot have taken it by then (a pause of this process before the answer is read counts).
 */
export function putBackFence(gate: PublishGate, clock: FenceClock): (path: string) => Promise<void> {
  const { idleTimeoutMs } = lockTiming(clock.periodMs);
  return async (path) => {
    const asked = clock.now().getTime();
    if (!(await gate.stillHolds()))
      throw new PlaceRefused(`ha: ${basename(path)} not put back: this instance no longer holds the lock`, true);
    const waited = clock.now().getTime() - asked;
    if (waited >= idleTimeoutMs)
      throw new PlaceRefused(
        `ha: ${basename(path)} not put back: the lock's answer took ${waited} ms, its idle timeout (${idleTimeoutMs} ms) or more`,
        false,
      );
  };
}

/** The `beforePut` of an S3 upload: the same, right before each object is put. */
export function uploadFence(
  gate: PublishGate,
  at: Date,
  clock: FenceClock,
): (file: string) => Promise<string | undefined> {
  return async () => (await refusal(gate, at, clock))?.message;
}
