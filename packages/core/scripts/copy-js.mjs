// After tsc: copies @dv/core's plain-JavaScript sources and their hand-written declarations
// into dist/ (tsc emits only what it compiles). Today one: cuda-device.js, plain JS so that the
// install-time set-up (packages/train/scripts/setup-native-tf.mjs) can import it unbuilt.
import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const f of ['cuda-device.js', 'cuda-device.d.ts'])
  copyFileSync(join(pkg, 'src', f), join(pkg, 'dist', f));
