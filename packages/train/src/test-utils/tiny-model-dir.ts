// The folder of a tiny Hugging Face model fixture in ../shared/data-external/models (see each
// folder's SOURCE.txt), or undefined (with a console line) when it is absent: @dv/core's locator.
import { dataExternalDir } from '@dv/core/test-utils';

export function tinyModelDir(name: string): string | undefined {
  return dataExternalDir(`the ${name} fixture checks`, 'models', name);
}
