#!/usr/bin/env node
// The Node.js check comes first: an unsupported line gets one line saying what to install, before dist/ loads.
import { refuseUnsupportedNode } from './node-check.js';

refuseUnsupportedNode();
const { run } = await import('../dist/cli.js');
process.exitCode = await run(process.argv);
