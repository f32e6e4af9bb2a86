// Redraws docs/architecture.md's folder picture from the code's imports (test/package/imports.test.ts checks it).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { folderPicture, importGraph, root, withPicture } from '../test/package/importGraph';

const path = join(root, 'docs', 'architecture.md');
writeFileSync(path, withPicture(readFileSync(path, 'utf8'), folderPicture(importGraph())));
console.log(`architecture: ${path} redrawn`);
