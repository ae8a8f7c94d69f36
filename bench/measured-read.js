// One read by a source, measured as the hostile-answer benches report it (hostile-json.js, hostile-export.js): the
// longest gap between ticks of a 1 ms timer (how long nothing else, a build or /healthz, could run), the CPU time of
// every thread (on a loaded machine the stall also counts the time the process was not scheduled at all), the wall
// time, and what came of it.
export async function measuredRead(read) {
  let stall = 0;
  let tick = performance.now();
  const timer = setInterval(() => {
    const at = performance.now();
    stall = Math.max(stall, at - tick);
    tick = at;
  }, 1);
  const started = performance.now();
  const cpu = process.cpuUsage();
  let outcome;
  try {
    outcome = await read();
  } catch (error) {
    outcome = error.message.slice(0, 160);
  }
  const ms = Math.round(performance.now() - started);
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  stall = Math.max(stall, performance.now() - tick);
  return { stallMs: Math.round(stall), cpuMs: Math.round((used.user + used.system) / 1000), ms, outcome };
}
