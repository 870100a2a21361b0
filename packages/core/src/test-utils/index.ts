/**
 * Test helpers shared by the workspace's packages (`@dv/core/test-utils`, resolved only through
 * the `@dv/source` condition: they are not part of the published package).
 */

export { dataExternalDir, dataExternalRoot } from './data-external.js';
export { tmpDir } from './tmp.js';
